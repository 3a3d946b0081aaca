/**
 * A CSV reader with the rules of the common RFC 4180 dialect: fields separated
 * by commas, a field in double quotes may hold commas, newlines and doubled
 * quotes (`""`), empty lines are skipped, CRLF and LF both end a record.
 * Leading spaces before an opening quote are allowed (and dropped).
 */
export interface CsvRecord {
  /** 1-based line on which the record starts. */
  line: number;
  fields: string[];
}

export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = "";
  let line = 1;
  let recordLine = 1;
  let i = 0;
  let atFieldStart = true;
  let sawAny = false;
  const endField = () => {
    fields.push(field);
    field = "";
    atFieldStart = true;
  };
  const endRecord = () => {
    if (sawAny) {
      endField();
      records.push({ line: recordLine, fields });
    }
    fields = [];
    field = "";
    atFieldStart = true;
    sawAny = false;
  };
  while (i < text.length) {
    const c = text[i];
    if (atFieldStart) {
      // skip spaces before a quoted field
      let j = i;
      while (text[j] === " " || text[j] === "\t") j++;
      if (text[j] === '"') {
        if (!sawAny) recordLine = line;
        sawAny = true;
        i = j + 1;
        atFieldStart = false;
        for (;;) {
          if (i >= text.length) throw new Error(`line ${recordLine}: extraneous or missing " in quoted field`);
          const q = text[i];
          if (q === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (q === "\n") line++;
          field += q;
          i++;
        }
        // after the closing quote: a separator, a line end or the end
        const n = text[i];
        if (n === undefined || n === "," || n === "\n" || n === "\r") continue;
        throw new Error(`line ${line}: extraneous " in field`);
      }
    }
    if (c === ",") {
      if (!sawAny) recordLine = line;
      sawAny = true;
      endField();
      i++;
      continue;
    }
    if (c === "\r" && text[i + 1] === "\n") {
      i++;
      continue;
    }
    if (c === "\n" || c === "\r") {
      endRecord();
      line++;
      i++;
      continue;
    }
    if (c === '"' && !atFieldStart) throw new Error(`line ${line}: bare " in non-quoted field`);
    if (!sawAny) recordLine = line;
    sawAny = true;
    atFieldStart = false;
    field += c;
    i++;
  }
  endRecord();
  return records;
}

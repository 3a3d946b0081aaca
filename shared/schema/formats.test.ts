import { describe, expect, it } from "vitest";
import {
  annotationsSize,
  byteLength,
  checkFormat,
  isDNS1123Label,
  isDNS1123Subdomain,
  isDate,
  isDateTime,
  isIP,
  isLabelValue,
  isPathSegmentName,
  isQualifiedName,
  isQuantity,
  isUID,
  nameValidator,
  parseQuantity,
  regexError,
  QUANTITY_FORMAT_MSG,
  QUANTITY_SUFFIX_MSG,
} from "./formats.ts";

const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe("regexError", () => {
  it("prints examples the platform's way", () => {
    expect(regexError("m", "f")).toBe("m (regex used for validation is 'f')");
    expect(regexError("m", "f", "a", "b")).toBe("m (e.g. 'a',  or 'b', regex used for validation is 'f')");
  });
});

describe("isDNS1123Label", () => {
  it.each([
    ["a", []],
    ["my-name", []],
    ["123-abc", []],
    ["a".repeat(63), []],
    ["a".repeat(64), ["must be no more than 63 characters"]],
    ["", [LABEL_MSG]],
    ["-a", [LABEL_MSG]],
    ["a-", [LABEL_MSG]],
    ["My-Name", [LABEL_MSG]],
    ["a_b", [LABEL_MSG]],
    ["a.b", ["must not contain dots"]],
  ] as const)("%j → %j", (value, errs) => {
    expect(isDNS1123Label(value)).toEqual(errs);
  });
});

describe("isDNS1123Subdomain", () => {
  it.each([
    ["example.com", []],
    ["a", []],
    ["a-b.c-d.e", []],
    [`${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`, []],
    [`${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(62)}`, ["must be no more than 253 characters"]],
    ["", [SUBDOMAIN_MSG]],
    ["a..b", [SUBDOMAIN_MSG]],
    [".a", [SUBDOMAIN_MSG]],
    ["A.b", [SUBDOMAIN_MSG]],
  ] as const)("%j → %j", (value, errs) => {
    expect(isDNS1123Subdomain(value)).toEqual(errs);
  });
});

describe("isPathSegmentName", () => {
  it.each([
    ["system:admin", []],
    ["UPPER_case", []],
    [".", ["may not be '.'"]],
    ["..", ["may not be '..'"]],
    ["...", []],
    ["a/b", ["may not contain '/'"]],
    ["a%b/c", ["may not contain '/'", "may not contain '%'"]],
  ] as const)("%j → %j", (value, errs) => {
    expect(isPathSegmentName(value)).toEqual(errs);
  });
});

describe("isQualifiedName (label keys)", () => {
  it.each([
    ["app", []],
    ["My.Name_1", []],
    ["example.com/app", []],
    ["a".repeat(63), []],
    ["a".repeat(64), ["name part must be no more than 63 characters"]],
    ["/app", ["prefix part must be non-empty"]],
    ["example.com/", ["name part must be non-empty", NAME_PART_MSG]],
    ["Example.com/app", [`prefix part ${SUBDOMAIN_MSG}`]],
    ["-app", [NAME_PART_MSG]],
    ["app-", [NAME_PART_MSG]],
  ] as const)("%j → %j", (value, errs) => {
    expect(isQualifiedName(value)).toEqual(errs);
  });

  it("rejects more than one slash with the whole-name message", () => {
    const [msg] = isQualifiedName("a/b/c");
    expect(msg).toMatch(/^a qualified name must consist of .* with an optional DNS subdomain prefix and '\/' \(e\.g\. 'example\.com\/MyName'\)$/);
  });
});

describe("isLabelValue", () => {
  it.each([
    ["", []],
    ["v1.2_3-x", []],
    ["a".repeat(64), ["must be no more than 63 characters"]],
    ["-x", [expect.stringMatching(/^a valid label must be an empty string or consist of/)]],
    ["x y", [expect.stringMatching(/'MyValue', {2}or 'my_value', {2}or '12345'/)]],
  ] as const)("%j → %j", (value, errs) => {
    expect(isLabelValue(value)).toEqual(errs);
  });
});

describe("quantities", () => {
  it.each([
    ["1", 1],
    ["500m", 0.5],
    ["1Ki", 1024],
    ["1.5Gi", 1.5 * 2 ** 30],
    ["2M", 2e6],
    ["1e3", 1000],
    ["1E-3", 0.001],
    ["+.5", 0.5],
    ["-5.", -5],
    ["100n", 1e-7],
    ["10u", 1e-5],
    ["3k", 3000],
    ["1Ei", 2 ** 60],
    ["1E", 1e18],
  ] as const)("%s parses to %d", (text, approx) => {
    const q = parseQuantity(text);
    expect("error" in q ? q.error : q.approx).toBeCloseTo(approx, 12);
    expect(isQuantity(text)).toEqual([]);
  });

  it.each([
    ["", QUANTITY_FORMAT_MSG],
    ["abc", QUANTITY_FORMAT_MSG],
    ["1 Gi", QUANTITY_FORMAT_MSG],
    ["1.2.3", QUANTITY_FORMAT_MSG],
    [".", QUANTITY_FORMAT_MSG],
    ["1KiB", QUANTITY_FORMAT_MSG],
    ["1Kk", QUANTITY_SUFFIX_MSG],
    ["1e", QUANTITY_SUFFIX_MSG],
    ["1ki", QUANTITY_SUFFIX_MSG],
    ["1mi", QUANTITY_SUFFIX_MSG],
  ] as const)("%j is rejected: %s", (text, msg) => {
    expect(isQuantity(text)).toEqual([msg]);
  });
});

describe("checkFormat", () => {
  it.each([
    ["int32", 2147483647, []],
    ["int32", -2147483648, []],
    ["int32", 2147483648, ["must be between -2147483648 and 2147483647, inclusive"]],
    ["int64", 9223372036854775807n, []],
    ["int64", 9223372036854775808n, ["must be between -9223372036854775808 and 9223372036854775807, inclusive"]],
    ["int64", 1.5, ["must be between -9223372036854775808 and 9223372036854775807, inclusive"]],
    ["date-time", "2024-02-29T23:59:60Z", []],
    ["date-time", "2024-01-02T03:04:05.123456+05:30", []],
    ["date-time", "2023-02-29T00:00:00Z", ["must be of type date-time"]],
    ["date-time", "2024-01-02 03:04:05Z", ["must be of type date-time"]],
    ["date-time", "2024-01-02T03:04:05", ["must be of type date-time"]],
    ["date", "2024-12-31", []],
    ["date", "2024-13-01", ["must be of type date"]],
    ["duration", "1h30m", []],
    ["duration", "1.5s", []],
    ["duration", "-0", []],
    ["duration", "300\u00b5s", []],
    ["duration", "3 days", []],
    ["duration", "2 hours 5 minutes", []],
    ["duration", "1w", []],
    ["duration", "", ["must be of type duration"]],
    ["duration", "soon", ["must be of type duration"]],
    ["duration", "1.5 days", []],
    ["duration", "5 months", ["must be of type duration"]],
    ["duration", ".s", ["must be of type duration"]],
    ["duration", "99999999999999999999 hours", ["must be of type duration"]],
    ["byte", "aGVsbG8=", []],
    ["byte", "", []],
    ["byte", "aGVsbG8", ["must be of type byte"]],
    ["byte", "a=b=", ["must be of type byte"]],
    ["uid", "0b6c3f4e-8a4f-4f0e-9a43-3f1c2d3e4f50", []],
    ["uid", "not-a-uid", ["must be of type uid"]],
    ["ip", "10.0.0.1", []],
    ["ip", "::1", []],
    ["ip", "2001:db8::ff00:42:8329", []],
    ["ip", "::ffff:192.168.1.1", []],
    ["ip", "1:2:3:4:5:6:7:8", []],
    ["ip", "010.0.0.1", ["must be of type ip"]],
    ["ip", "256.0.0.1", ["must be of type ip"]],
    ["ip", "1:2:3:4:5:6:7:8:9", ["must be of type ip"]],
    ["ip", "1::2::3", ["must be of type ip"]],
    ["ip", "fe80::1%eth0", ["must be of type ip"]],
    ["dns1123-label", "ok", []],
    ["label-key", "a/b/c", [expect.any(String)]],
    ["quantity", "1Gi", []],
    ["double", "anything", []],
    ["dns1123-label", 42, []],
  ] as const)("%s %s → %j", (format, value, errs) => {
    expect(checkFormat(format, value)).toEqual(errs);
  });

  it("helpers agree with checkFormat", () => {
    expect(isDateTime("2024-01-01T00:00:00Z")).toBe(true);
    expect(isDate("2024-02-30")).toBe(false);
    expect(isUID("0B6C3F4E-8A4F-4F0E-9A43-3F1C2D3E4F50")).toBe(true);
    expect(isIP("")).toBe(false);
  });
});

describe("names and annotations", () => {
  it("validates generateName as a prefix", () => {
    expect(nameValidator("dns1123-subdomain")("web-", true)).toEqual([]);
    expect(nameValidator("dns1123-subdomain")("web-", false)).toHaveLength(1);
    expect(nameValidator("dns1123-label")("ns-", true)).toEqual([]);
    expect(nameValidator("path-segment-name")("..", true)).toEqual([]);
    expect(nameValidator("path-segment-name")("..", false)).toEqual(["may not be '..'"]);
  });

  it("counts annotation sizes in bytes", () => {
    expect(annotationsSize({ a: "bc", "é": "ü" })).toBe(3 + 4);
  });
});

describe("byteLength", () => {
  const encoded = (s: string) => new TextEncoder().encode(s).length;

  it("counts the UTF-8 bytes as encoding would, lone surrogates as U+FFFD", () => {
    for (const s of ["", "abc", "é", "ß-x", "€", "日本語", "😀", "a😀b", "\ud83d", "\ude00", "x\ud83d", "\ude00\ud83d", "\ud83d\ud83d\ude00", "\u007f\u0080\u07ff\u0800\uffff"]) {
      expect(byteLength(s), JSON.stringify(s)).toBe(encoded(s));
    }
  });

  it("agrees with encoding on random strings of any code units", () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const units = [0x41, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xffff];
    for (let t = 0; t < 500; t++) {
      const s = String.fromCharCode(...Array.from({ length: next() % 12 }, () => units[next() % units.length]));
      expect(byteLength(s)).toBe(encoded(s));
    }
  });
});

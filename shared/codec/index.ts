/** Wire codecs the HTTP layer calls: protobuf (envelope, objects, lists, Status, watch), CBOR and Table. Pure. */
export * as protobuf from "./protobuf/index.ts";
export { CborError, CborSeqReader, CBOR_SELF_DESCRIBED, DEFAULT_CBOR_MAX_DEPTH, decodeCbor, decodeCborSeq, encodeCbor, encodeCborSeqItem, type CborDecodeOptions, type CborErrorCode } from "./cbor.ts";
export { tableCells, tableColumnDefinitions, toTable, watchEventTable, type IncludeObject, type Table, type TableColumnDefinition, type TableOptions, type TableRow } from "./table.ts";

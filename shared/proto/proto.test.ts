import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { loadSync, type MessageTypeDefinition, type PackageDefinition, type ServiceDefinition } from "@grpc/proto-loader";
import { describe, expect, it } from "vitest";
import { ALL_PROTOS, PROTO_LOADER_OPTIONS, PROTO_ROOT, protoPath } from "./index.ts";

interface FieldDescriptor {
  name: string;
  number: number;
  type: string;
  label: string;
  typeName: string;
}
interface EnumDescriptor {
  name: string;
  value: { name: string; number: number }[];
}
interface MessageDescriptor {
  name: string;
  field: FieldDescriptor[];
  enumType: EnumDescriptor[];
}

function protoFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return protoFiles(path);
    return name.endsWith(".proto") ? [relative(PROTO_ROOT, path)] : [];
  });
}

const def: PackageDefinition = loadSync([...ALL_PROTOS], PROTO_LOADER_OPTIONS);

function service(name: string): ServiceDefinition {
  const s = def[name];
  if (s === undefined || "format" in s) throw new Error(`${name} is not a service`);
  return s as ServiceDefinition;
}

function message(name: string): MessageTypeDefinition<object, object> {
  const m = def[name];
  if (m === undefined || !("format" in m) || m.format !== "Protocol Buffer 3 DescriptorProto") throw new Error(`${name} is not a message`);
  return m as MessageTypeDefinition<object, object>;
}

function descriptor(name: string): MessageDescriptor {
  return message(name).type as MessageDescriptor;
}

function field(msg: string, name: string): FieldDescriptor {
  const f = descriptor(msg).field.find((x) => x.name === name);
  if (f === undefined) throw new Error(`${msg}.${name} missing`);
  return f;
}

/** "Name(Request) -> Response", with "stream " where a side streams. */
function signatures(name: string): string[] {
  return Object.entries(service(name)).map(([method, m]) => {
    const req = (m.requestType.type as MessageDescriptor).name;
    const res = (m.responseType.type as MessageDescriptor).name;
    return `${method}(${m.requestStream ? "stream " : ""}${req}) -> ${m.responseStream ? "stream " : ""}${res} ${m.path}`;
  });
}

describe("proto files", () => {
  it("every service .proto under shared/proto is listed and loads", () => {
    // api/ holds the generated object messages; shared/codec/protobuf checks them against the generator.
    expect(protoFiles(PROTO_ROOT).filter((f) => !f.startsWith("api/")).sort()).toEqual([...ALL_PROTOS].sort());
  });

  it("carry no gogoproto, gateway or version annotations", () => {
    for (const file of ALL_PROTOS) {
      const text = readFileSync(protoPath(file), "utf8");
      expect(text, file).not.toMatch(/import\s+"(gogoproto|google|protoc-gen-openapiv2|etcd\/api\/versionpb)/);
      expect(text, file).not.toMatch(/\((gogoproto|google\.api|grpc\.gateway|versionpb)\./);
    }
  });
});

describe("etcd v3 services", () => {
  it("KV", () => {
    expect(signatures("etcdserverpb.KV")).toEqual([
      "Range(RangeRequest) -> RangeResponse /etcdserverpb.KV/Range",
      "Put(PutRequest) -> PutResponse /etcdserverpb.KV/Put",
      "DeleteRange(DeleteRangeRequest) -> DeleteRangeResponse /etcdserverpb.KV/DeleteRange",
      "Txn(TxnRequest) -> TxnResponse /etcdserverpb.KV/Txn",
      "Compact(CompactionRequest) -> CompactionResponse /etcdserverpb.KV/Compact",
    ]);
  });

  it("Watch and Lease", () => {
    expect(signatures("etcdserverpb.Watch")).toEqual(["Watch(stream WatchRequest) -> stream WatchResponse /etcdserverpb.Watch/Watch"]);
    expect(signatures("etcdserverpb.Lease")).toEqual([
      "LeaseGrant(LeaseGrantRequest) -> LeaseGrantResponse /etcdserverpb.Lease/LeaseGrant",
      "LeaseRevoke(LeaseRevokeRequest) -> LeaseRevokeResponse /etcdserverpb.Lease/LeaseRevoke",
      "LeaseKeepAlive(stream LeaseKeepAliveRequest) -> stream LeaseKeepAliveResponse /etcdserverpb.Lease/LeaseKeepAlive",
      "LeaseTimeToLive(LeaseTimeToLiveRequest) -> LeaseTimeToLiveResponse /etcdserverpb.Lease/LeaseTimeToLive",
      "LeaseLeases(LeaseLeasesRequest) -> LeaseLeasesResponse /etcdserverpb.Lease/LeaseLeases",
    ]);
  });

  it("Cluster and Maintenance", () => {
    expect(signatures("etcdserverpb.Cluster")).toEqual([
      "MemberAdd(MemberAddRequest) -> MemberAddResponse /etcdserverpb.Cluster/MemberAdd",
      "MemberRemove(MemberRemoveRequest) -> MemberRemoveResponse /etcdserverpb.Cluster/MemberRemove",
      "MemberUpdate(MemberUpdateRequest) -> MemberUpdateResponse /etcdserverpb.Cluster/MemberUpdate",
      "MemberList(MemberListRequest) -> MemberListResponse /etcdserverpb.Cluster/MemberList",
      "MemberPromote(MemberPromoteRequest) -> MemberPromoteResponse /etcdserverpb.Cluster/MemberPromote",
    ]);
    expect(signatures("etcdserverpb.Maintenance")).toEqual([
      "Alarm(AlarmRequest) -> AlarmResponse /etcdserverpb.Maintenance/Alarm",
      "Status(StatusRequest) -> StatusResponse /etcdserverpb.Maintenance/Status",
      "Defragment(DefragmentRequest) -> DefragmentResponse /etcdserverpb.Maintenance/Defragment",
      "Hash(HashRequest) -> HashResponse /etcdserverpb.Maintenance/Hash",
      "HashKV(HashKVRequest) -> HashKVResponse /etcdserverpb.Maintenance/HashKV",
      "Snapshot(SnapshotRequest) -> stream SnapshotResponse /etcdserverpb.Maintenance/Snapshot",
      "MoveLeader(MoveLeaderRequest) -> MoveLeaderResponse /etcdserverpb.Maintenance/MoveLeader",
    ]);
  });
});

describe("etcd v3 field numbers", () => {
  // [message, field, number, type] as in etcd's api/etcdserverpb/rpc.proto and api/mvccpb/kv.proto
  const table: [string, string, number, string][] = [
    ["etcdserverpb.ResponseHeader", "cluster_id", 1, "TYPE_UINT64"],
    ["etcdserverpb.ResponseHeader", "member_id", 2, "TYPE_UINT64"],
    ["etcdserverpb.ResponseHeader", "revision", 3, "TYPE_INT64"],
    ["etcdserverpb.ResponseHeader", "raft_term", 4, "TYPE_UINT64"],
    ["etcdserverpb.RangeRequest", "range_end", 2, "TYPE_BYTES"],
    ["etcdserverpb.RangeRequest", "revision", 4, "TYPE_INT64"],
    ["etcdserverpb.RangeRequest", "sort_order", 5, "TYPE_ENUM"],
    ["etcdserverpb.RangeRequest", "serializable", 7, "TYPE_BOOL"],
    ["etcdserverpb.RangeRequest", "count_only", 9, "TYPE_BOOL"],
    ["etcdserverpb.RangeRequest", "max_create_revision", 13, "TYPE_INT64"],
    ["etcdserverpb.RangeResponse", "count", 4, "TYPE_INT64"],
    ["etcdserverpb.PutRequest", "ignore_lease", 6, "TYPE_BOOL"],
    ["etcdserverpb.DeleteRangeResponse", "prev_kvs", 3, "TYPE_MESSAGE"],
    ["etcdserverpb.RequestOp", "request_txn", 4, "TYPE_MESSAGE"],
    ["etcdserverpb.Compare", "key", 3, "TYPE_BYTES"],
    ["etcdserverpb.Compare", "lease", 8, "TYPE_INT64"],
    ["etcdserverpb.Compare", "range_end", 64, "TYPE_BYTES"],
    ["etcdserverpb.WatchCreateRequest", "start_revision", 3, "TYPE_INT64"],
    ["etcdserverpb.WatchCreateRequest", "fragment", 8, "TYPE_BOOL"],
    ["etcdserverpb.WatchResponse", "compact_revision", 5, "TYPE_INT64"],
    ["etcdserverpb.WatchResponse", "cancel_reason", 6, "TYPE_STRING"],
    ["etcdserverpb.WatchResponse", "fragment", 7, "TYPE_BOOL"],
    ["etcdserverpb.WatchResponse", "events", 11, "TYPE_MESSAGE"],
    ["etcdserverpb.LeaseGrantRequest", "TTL", 1, "TYPE_INT64"],
    ["etcdserverpb.LeaseGrantRequest", "ID", 2, "TYPE_INT64"],
    ["etcdserverpb.LeaseTimeToLiveResponse", "grantedTTL", 4, "TYPE_INT64"],
    ["etcdserverpb.LeaseTimeToLiveResponse", "keys", 5, "TYPE_BYTES"],
    ["etcdserverpb.Member", "isLearner", 5, "TYPE_BOOL"],
    ["etcdserverpb.MemberListRequest", "linearizable", 1, "TYPE_BOOL"],
    ["etcdserverpb.StatusResponse", "raftAppliedIndex", 7, "TYPE_UINT64"],
    ["etcdserverpb.StatusResponse", "isLearner", 10, "TYPE_BOOL"],
    ["etcdserverpb.StatusResponse", "downgradeInfo", 13, "TYPE_MESSAGE"],
    ["mvccpb.KeyValue", "mod_revision", 3, "TYPE_INT64"],
    ["mvccpb.KeyValue", "lease", 6, "TYPE_INT64"],
    ["mvccpb.Event", "kv", 2, "TYPE_MESSAGE"],
    ["mvccpb.Event", "prev_kv", 3, "TYPE_MESSAGE"],
  ];
  for (const [msg, name, number, type] of table) {
    it(`${msg}.${name} = ${number}`, () => {
      const f = field(msg, name);
      expect(f.number).toBe(number);
      expect(f.type).toBe(type);
    });
  }

  it("field numbers are unique within each message", () => {
    for (const name of Object.keys(def)) {
      const d = def[name];
      if (!("format" in d) || d.format !== "Protocol Buffer 3 DescriptorProto") continue;
      const numbers = (d.type as MessageDescriptor).field.map((f) => f.number);
      expect(new Set(numbers).size, name).toBe(numbers.length);
    }
  });

  it("enum values match etcd's", () => {
    const values = (msg: string, e: string) =>
      descriptor(msg)
        .enumType.find((x) => x.name === e)
        ?.value.map((v) => `${v.name}=${v.number}`);
    expect(values("mvccpb.Event", "EventType")).toEqual(["PUT=0", "DELETE=1"]);
    expect(values("etcdserverpb.Compare", "CompareResult")).toEqual(["EQUAL=0", "GREATER=1", "LESS=2", "NOT_EQUAL=3"]);
    expect(values("etcdserverpb.Compare", "CompareTarget")).toEqual(["VERSION=0", "CREATE=1", "MOD=2", "VALUE=3", "LEASE=4"]);
    expect(values("etcdserverpb.RangeRequest", "SortTarget")).toEqual(["KEY=0", "VERSION=1", "CREATE=2", "MOD=3", "VALUE=4"]);
    expect(values("etcdserverpb.WatchCreateRequest", "FilterType")).toEqual(["NOPUT=0", "NODELETE=1"]);
  });
});

describe("wire format", () => {
  it("a RangeRequest encodes to the bytes an etcd client sends", () => {
    const range = service("etcdserverpb.KV").Range;
    // field 1 (key, bytes) "a"; field 2 (range_end) "b"; field 4 (revision, varint) 5; field 7 (serializable) true
    const bytes = range.requestSerialize({ key: Buffer.from("a"), range_end: Buffer.from("b"), revision: "5", serializable: true });
    expect([...bytes]).toEqual([0x0a, 0x01, 0x61, 0x12, 0x01, 0x62, 0x20, 0x05, 0x38, 0x01]);
  });

  it("a WatchResponse from hand-built bytes decodes events and prev_kv", () => {
    const watch = service("etcdserverpb.Watch").Watch;
    const kv = [0x0a, 0x01, 0x6b, 0x18, 0x07, 0x30, 0x09]; // key "k", mod_revision 7, lease 9
    const event = [0x08, 0x01, 0x12, kv.length, ...kv, 0x1a, kv.length, ...kv]; // DELETE, kv, prev_kv
    const bytes = Buffer.from([0x10, 0x03, 0x5a, event.length, ...event]); // watch_id 3, events (field 11)
    const res = watch.responseDeserialize(bytes) as {
      watch_id: string;
      events: { type: string; kv: { key: Buffer; mod_revision: string; lease: string }; prev_kv: { key: Buffer } }[];
    };
    expect(res.watch_id).toBe("3");
    expect(res.events).toHaveLength(1);
    expect(res.events[0].type).toBe("DELETE");
    expect(res.events[0].kv.key.toString()).toBe("k");
    expect(res.events[0].kv.mod_revision).toBe("7");
    expect(res.events[0].kv.lease).toBe("9");
    expect(res.events[0].prev_kv.key.toString()).toBe("k");
  });

  it("int64 lease ids round trip exactly as strings", () => {
    const put = service("etcdserverpb.KV").Put;
    const id = "9223372036854775807";
    const back = put.requestDeserialize(put.requestSerialize({ key: Buffer.from("k"), lease: id })) as { lease: string };
    expect(back.lease).toBe(id);
  });
});

describe("store peer transport", () => {
  it("has the batch stream and the forwarding calls", () => {
    expect(signatures("store.peer.v1.Peer")).toEqual([
      "Stream(stream PeerBatch) -> stream PeerAck /store.peer.v1.Peer/Stream",
      "Propose(ProposeRequest) -> ProposeResponse /store.peer.v1.Peer/Propose",
      "ReadIndex(ReadIndexRequest) -> ReadIndexResponse /store.peer.v1.Peer/ReadIndex",
      "SendSnapshot(stream SnapshotChunk) -> SnapshotAck /store.peer.v1.Peer/SendSnapshot",
    ]);
    const messages = field("store.peer.v1.PeerBatch", "messages");
    expect(messages).toMatchObject({ number: 5, type: "TYPE_BYTES", label: "LABEL_REPEATED" });
    const stream = service("store.peer.v1.Peer").Stream;
    const batch = { cluster_id: "1", from: "2", to: "3", seq: "4", messages: [Buffer.from([1, 2]), Buffer.from([3])] };
    expect(stream.requestDeserialize(stream.requestSerialize(batch))).toEqual(batch);
  });
});

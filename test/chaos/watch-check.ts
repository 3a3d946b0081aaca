/**
 * What each watcher of the chaos suite should have received, from the store's
 * history, and how its record differs. The expected events of a watcher are the
 * namespace's key changes after its starting revision, up to the last one, each as
 * (type, name, revision): a PUT whose create revision is its mod revision is
 * ADDED, another PUT MODIFIED, a delete DELETED. Compared with what it received:
 *   lost          expected, never received, and not skipped by a relist after a 410
 *   duplicated    received more than once
 *   out of order  received after an event of a later revision
 *   wrong         received, but not as expected (another type, or no such change)
 */
import type { RevisionChange } from "../../services/apiserver/storage/kv.ts";
import type { ReceivedEvent, RelistGap } from "./watch-recorder.ts";

export interface ExpectedEvent {
  type: "ADDED" | "MODIFIED" | "DELETED";
  name: string;
  revision: number;
}

export interface WatcherFigures {
  received: number;
  expected: number;
  lost: number;
  duplicated: number;
  outOfOrder: number;
  wrong: number;
  /** Expected events skipped by relists after a 410. */
  relisted: number;
  /** A few problems in words, for the report. */
  samples: string[];
}

/** The ConfigMap name of a storage key of `namespace`, or undefined for other keys. */
export function configMapName(key: string, namespace: string): string | undefined {
  const marker = `/configmaps/${namespace}/`;
  const at = key.indexOf(marker);
  return at < 0 ? undefined : key.slice(at + marker.length);
}

export function expectedEvents(history: readonly RevisionChange[], namespace: string): ExpectedEvent[] {
  const out: ExpectedEvent[] = [];
  for (const h of history) {
    for (const c of h.changes) {
      const name = configMapName(c.key, namespace);
      if (name === undefined) continue;
      const type = c.type === "DELETE" ? "DELETED" : c.createRevision === c.modRevision ? "ADDED" : "MODIFIED";
      out.push({ type, name, revision: h.revision });
    }
  }
  return out;
}

export function checkWatcher(expectedAll: readonly ExpectedEvent[], startRevision: number, received: readonly ReceivedEvent[], gaps: readonly RelistGap[]): WatcherFigures {
  const expected = expectedAll.filter((e) => e.revision > startRevision);
  const id = (e: { name: string; revision: number }) => `${e.revision}/${e.name}`;
  const byId = new Map(expected.map((e) => [id(e), e]));
  const seen = new Set<string>();
  const f: WatcherFigures = { received: received.length, expected: expected.length, lost: 0, duplicated: 0, outOfOrder: 0, wrong: 0, relisted: 0, samples: [] };
  const note = (text: string) => {
    if (f.samples.length < 5) f.samples.push(text);
  };
  let newest = 0;
  for (const r of received) {
    const k = id(r);
    if (seen.has(k)) {
      f.duplicated++;
      note(`duplicate ${r.type} ${k}`);
      continue;
    }
    seen.add(k);
    if (r.revision < newest) {
      f.outOfOrder++;
      note(`${r.type} ${k} after revision ${newest}`);
    }
    newest = Math.max(newest, r.revision);
    const e = byId.get(k);
    if (e === undefined || e.type !== r.type) {
      f.wrong++;
      note(`received ${r.type} ${k}, expected ${e === undefined ? "no event" : e.type}`);
    }
  }
  for (const e of expected) {
    if (seen.has(id(e))) continue;
    if (gaps.some((g) => e.revision > g.from && e.revision <= g.to)) f.relisted++;
    else {
      f.lost++;
      note(`lost ${e.type} ${id(e)}`);
    }
  }
  return f;
}

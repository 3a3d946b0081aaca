/**
 * Chain verdicts reused across the requests of one connection.
 *
 * Contract: `verifyClientChain` depends on the chain, the roots and the time,
 * and on the time only through each certificate's validity period. A verdict
 * is therefore reused, for the same chain array, while the clock stays between
 * the nearest validity boundaries (notBefore, or just after notAfter) of any
 * certificate involved; crossing one, or the clock going back, verifies again.
 * Chains are keyed by array identity: `peerCertificatesOf` hands out one array
 * per TLS connection, which cannot change its certificate (no renegotiation).
 */
import type { X509Certificate } from "node:crypto";
import { verifyClientChain, type ChainCheck } from "./cert-verify.ts";

interface Verdict {
  check: ChainCheck;
  /** The verdict holds for times in [from, until). */
  from: number;
  until: number;
}

/** Instants at which some certificate's validity flips (validity is inclusive of notAfter). */
function boundaries(certs: readonly X509Certificate[]): number[] {
  const out: number[] = [];
  for (const c of certs) out.push(Date.parse(c.validFrom), Date.parse(c.validTo) + 1);
  return out;
}

export class ChainVerdicts {
  private readonly verdicts = new WeakMap<readonly X509Certificate[], Verdict>();
  private readonly rootBoundaries: number[];
  /** Verifications actually performed (for tests). */
  computed = 0;

  constructor(private readonly roots: readonly X509Certificate[]) {
    this.rootBoundaries = boundaries(roots);
  }

  verify(chain: readonly X509Certificate[], now: Date): ChainCheck {
    const t = now.getTime();
    const hit = this.verdicts.get(chain);
    if (hit && hit.from <= t && t < hit.until) return hit.check;
    const check = verifyClientChain(chain, this.roots, now);
    this.computed++;
    let from = -Infinity;
    let until = Infinity;
    for (const b of [...boundaries(chain), ...this.rootBoundaries]) {
      if (b <= t) from = Math.max(from, b);
      else until = Math.min(until, b);
    }
    this.verdicts.set(chain, { check, from, until });
    return check;
  }
}

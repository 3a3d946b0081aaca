/**
 * Value transformers of encryption at rest, as the platform's: each provider writes
 * `<profile prefix>:enc:<provider>:v1:<key name>:` before its ciphertext (kms v2:
 * `…:enc:kms:v2:<provider name>:`); identity writes the plain value. A resource's
 * transformer writes with its first provider and reads with whichever provider's
 * prefix the value carries; a value read by another than the first is `stale` (a
 * rewrite moves it to the first). `ctx` is the storage key: authenticated data of
 * the AEAD providers, so a value copied under another key does not decrypt.
 */
export interface ReadResult {
  value: Uint8Array;
  /** Not written by the first provider: rewriting the object re-encrypts it. */
  stale: boolean;
}

export interface ValueTransformer {
  toStorage(plain: Uint8Array, ctx: string): Promise<Uint8Array>;
  fromStorage(stored: Uint8Array, ctx: string): Promise<ReadResult>;
}

/** A provider of the configuration: its prefix (empty for identity) and its transform. */
export interface Provider {
  /** `identity`, `aescbc`, `aesgcm`, `secretbox`, `kms`. */
  readonly kind: string;
  readonly prefix: Uint8Array;
  encrypt(plain: Uint8Array, ctx: string): Promise<Uint8Array>;
  /**
   * `body` is the stored value without the prefix. A provider that can tell an old form
   * of its own (kms v2: another key id, or the AES_GCM_KEY form) answers a ReadResult
   * marked stale, so a rewrite moves the value to its current form.
   */
  decrypt(body: Uint8Array, ctx: string): Promise<Uint8Array | ReadResult>;
}

/** The profile's encryption prefix root: `k8s:enc:` for the kubernetes profile, `<id>:enc:` otherwise. */
export function encryptionPrefixRoot(profileId: string): string {
  return `${profileId === "kubernetes" ? "k8s" : profileId}:enc:`;
}

/** A failure to read a stored value (no provider for its prefix, a bad key or tampered data). */
export class TransformError extends Error {}

function startsWith(data: Uint8Array, prefix: Uint8Array): boolean {
  if (data.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (data[i] !== prefix[i]) return false;
  return true;
}

/** Observes each transformation (metrics): `transformation_type` is to_storage or from_storage. */
export type TransformObserver = (type: "to_storage" | "from_storage", transformer: string, ok: boolean) => void;

export class PrefixTransformer implements ValueTransformer {
  private readonly encryptedRoot: Uint8Array;

  constructor(
    private readonly providers: readonly Provider[],
    profileId: string,
    private readonly observe: TransformObserver = () => {},
  ) {
    this.encryptedRoot = new TextEncoder().encode(encryptionPrefixRoot(profileId));
  }

  async toStorage(plain: Uint8Array, ctx: string): Promise<Uint8Array> {
    const first = this.providers[0];
    try {
      const body = await first.encrypt(plain, ctx);
      const out = new Uint8Array(first.prefix.length + body.length);
      out.set(first.prefix, 0);
      out.set(body, first.prefix.length);
      this.observe("to_storage", first.kind, true);
      return out;
    } catch (err) {
      this.observe("to_storage", first.kind, false);
      throw err;
    }
  }

  async fromStorage(stored: Uint8Array, ctx: string): Promise<ReadResult> {
    let identity = -1;
    for (let i = 0; i < this.providers.length; i++) {
      const p = this.providers[i];
      if (p.prefix.length === 0) {
        if (identity < 0) identity = i;
        continue;
      }
      if (!startsWith(stored, p.prefix)) continue;
      try {
        const read = await p.decrypt(stored.subarray(p.prefix.length), ctx);
        this.observe("from_storage", p.kind, true);
        return read instanceof Uint8Array ? { value: read, stale: i !== 0 } : { value: read.value, stale: read.stale || i !== 0 };
      } catch (err) {
        this.observe("from_storage", p.kind, false);
        throw new TransformError(`${p.kind} decryption failed: ${(err as Error).message}`, { cause: err });
      }
    }
    if (identity >= 0) {
      if (startsWith(stored, this.encryptedRoot)) {
        this.observe("from_storage", "identity", false);
        throw new TransformError("identity transformer tried to read encrypted data");
      }
      this.observe("from_storage", "identity", true);
      return { value: stored, stale: identity !== 0 };
    }
    throw new TransformError("no matching prefix found");
  }
}

/** Reads plain values and refuses encrypted ones: the transformer of resources the configuration does not name. */
export function identityProvider(): Provider {
  return {
    kind: "identity",
    prefix: new Uint8Array(0),
    encrypt: async (plain) => plain,
    decrypt: async (body) => body,
  };
}

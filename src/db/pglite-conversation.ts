import type { PGlite } from '@electric-sql/pglite';

/**
 * The query queue behind the owner's socket: it keeps each socket client's conversation whole.
 *
 * PGlite is one Postgres session. pglite-socket's own queue runs one protocol message at a time, so
 * between a client's Parse and its Sync, or between its BEGIN and COMMIT, another client's message —
 * or the owner's own drizzle query, which never goes through that queue — would run inside the
 * client's unnamed statement or transaction. Here a client holds the conversation from its first
 * message until the server reports it idle (ReadyForQuery 'I'), and while it does it also holds
 * PGlite's transaction mutex, the one every in-process query(), exec() and transaction() takes
 * first: the owner's statements wait for the client's transaction to end and never run inside it,
 * and a client waits for the owner's transaction in the same way.
 *
 * A client that goes away mid-conversation has its work rolled back; one that holds the conversation
 * without sending anything for `idleMs` is disconnected (and rolled back), so a stopped CLI cannot
 * stall the server for ever.
 */

/** Raw PGlite calls the queue needs; `_runExclusiveTransaction` is the mutex its public calls take. */
type Engine = Pick<PGlite, 'runExclusive' | 'execProtocolRawStream' | 'isInTransaction'> & {
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
};

interface Item {
  handlerId: number;
  /** null: the handler is gone; end its conversation. */
  message: Uint8Array | null;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (e: Error) => void;
}

const Z = 0x5a; // ReadyForQuery
const TERMINATE = 0x58; // 'X'

export interface ConversationOptions {
  /** A client holding the conversation this long without a message is disconnected (0: never). */
  idleMs: number;
  onIdle: (handlerId: number) => void;
}

export class ConversationQueue {
  readonly #pg: Engine;
  readonly #opts: ConversationOptions;
  #pending: Item[] = [];
  #pumping = false;
  /** The handler whose conversation is open, and the release of PGlite's transaction mutex it holds. */
  #holder: number | null = null;
  #release: (() => void) | null = null;
  #running: number | null = null;
  #idle: NodeJS.Timeout | null = null;

  constructor(pg: PGlite, opts: ConversationOptions) {
    const engine = pg as unknown as Engine;
    if (typeof engine._runExclusiveTransaction !== 'function') {
      throw new Error('this PGlite has no _runExclusiveTransaction: the socket cannot keep transactions apart (pin @electric-sql/pglite)');
    }
    this.#pg = engine;
    this.#opts = opts;
  }

  /** Called by PGLiteSocketHandler for every complete frontend message, in order. */
  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ handlerId, message, onData, resolve, reject });
      void this.#pump();
    });
  }

  clearQueueForHandler(handlerId: number): void {
    const gone = this.#pending.filter((i) => i.handlerId === handlerId && i.message);
    this.#pending = this.#pending.filter((i) => !gone.includes(i));
    for (const i of gone) i.reject(new Error('Handler disconnected'));
  }

  /** The handler detached: roll back whatever conversation it left open. */
  clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.#holder !== handlerId && this.#running !== handlerId) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#pending.push({ handlerId, message: null, onData: () => {}, resolve: () => resolve(), reject });
      void this.#pump();
    });
  }

  /** True while a socket client holds the conversation (tests). */
  get busy(): boolean {
    return this.#holder !== null;
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      for (;;) {
        const at = this.#holder === null ? 0 : this.#pending.findIndex((i) => i.handlerId === this.#holder);
        if (at < 0 || at >= this.#pending.length) break;
        const item = this.#pending.splice(at, 1)[0]!;
        if (!item.message) {
          if (this.#holder === item.handlerId) await this.#abandon();
          item.resolve(0);
          continue;
        }
        if (this.#idle) clearTimeout(this.#idle);
        this.#idle = null;
        // Marked running before the wait for the mutex, so a detach meanwhile still ends the conversation.
        this.#running = item.handlerId;
        let status: number | null;
        try {
          if (this.#holder === null) await this.#open(item.handlerId);
          const r = await this.#run(item.message, item.onData);
          status = r.status;
          item.resolve(r.bytes);
        } catch (e) {
          item.reject(e as Error);
          await this.#abandon();
          continue;
        } finally {
          this.#running = null;
        }
        if (status === 0x49 /* 'I' */) this.#close();
        else if (item.message[0] === TERMINATE) await this.#abandon();
        else this.#armIdle(item.handlerId);
      }
    } finally {
      this.#pumping = false;
    }
  }

  #open(handlerId: number): Promise<void> {
    return new Promise((acquired) => {
      void this.#pg._runExclusiveTransaction(
        () =>
          new Promise<void>((release) => {
            this.#holder = handlerId;
            this.#release = release;
            acquired();
          }),
      );
    });
  }

  #close(): void {
    const release = this.#release;
    this.#holder = null;
    this.#release = null;
    release?.();
  }

  #armIdle(handlerId: number): void {
    if (this.#opts.idleMs <= 0) return;
    this.#idle = setTimeout(() => {
      this.#idle = null;
      if (this.#holder !== handlerId) return;
      void this.clearTransactionIfNeeded(handlerId).finally(() => this.#opts.onIdle(handlerId));
    }, this.#opts.idleMs);
    this.#idle.unref();
  }

  /**
   * Ends the holder's conversation with nothing of it committed: a Parse that fails aborts an implicit
   * transaction left open between a client's Execute and its Sync (a bare Sync would commit it), the
   * Sync closes it, and an explicit transaction still open is rolled back.
   */
  async #abandon(): Promise<void> {
    if (this.#holder === null) return;
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = null;
    try {
      await this.#run(parseMessage('assay: the client left mid-conversation'), () => {});
      await this.#run(SYNC, () => {});
      if (this.#pg.isInTransaction()) await this.#run(queryMessage('ROLLBACK'), () => {});
    } catch {
      // The engine itself failed (closed under us): nothing is left to roll back.
    } finally {
      this.#close();
    }
  }

  async #run(message: Uint8Array, onData: (d: Uint8Array) => void): Promise<{ bytes: number; status: number | null }> {
    const tracker = new ReadyTracker();
    let bytes = 0;
    await this.#pg.runExclusive(() =>
      this.#pg.execProtocolRawStream(message, {
        onRawData: (d) => {
          bytes += d.length;
          tracker.push(d);
          onData(d);
        },
      }),
    );
    return { bytes, status: tracker.status };
  }
}

/** Follows the framing of backend messages (type byte, int32 length) to see whether the last is ReadyForQuery. */
export class ReadyTracker {
  #header: number[] = [];
  #type = 0;
  #left = 0;
  #lastType = 0;
  #zStatus: number | null = null;

  push(d: Uint8Array): void {
    let i = 0;
    while (i < d.length) {
      if (this.#left === 0) {
        this.#header.push(d[i++]!);
        if (this.#header.length < 5) continue;
        const [t, a, b, c, e] = this.#header as [number, number, number, number, number];
        this.#header = [];
        this.#type = t;
        this.#left = ((a << 24) | (b << 16) | (c << 8) | e) - 4;
        if (this.#left <= 0) this.#finish(null);
        continue;
      }
      const take = Math.min(this.#left, d.length - i);
      const status = this.#type === Z ? d[i]! : null;
      i += take;
      this.#left -= take;
      if (this.#left === 0) this.#finish(status);
    }
  }

  #finish(status: number | null): void {
    this.#left = 0;
    this.#lastType = this.#type;
    this.#zStatus = status;
  }

  /** The transaction status of a final ReadyForQuery ('I', 'T' or 'E'), or null when the last message is another. */
  get status(): number | null {
    return this.#lastType === Z && this.#header.length === 0 ? this.#zStatus : null;
  }
}

const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);

function frame(type: string, body: Buffer): Uint8Array {
  const out = Buffer.alloc(5 + body.length);
  out[0] = type.charCodeAt(0);
  out.writeInt32BE(4 + body.length, 1);
  body.copy(out, 5);
  return new Uint8Array(out);
}

const queryMessage = (sql: string): Uint8Array => frame('Q', Buffer.from(`${sql}\0`));
/** Parse of the unnamed statement with no parameter types. */
const parseMessage = (sql: string): Uint8Array => frame('P', Buffer.concat([Buffer.from(`\0${sql}\0`), Buffer.from([0, 0])]));

/**
 * The hashes of §3.5 transcripts of one message list, kept between resolves by a pass that
 * resolves every compaction's original of a session in turn (the map in tokens, the reductions'
 * figures: docs/tokens.md "How the pass runs"). A session's compactions each hide the view before
 * them, so their ranges nest ([0, e1), [0, e2), …), and a transcript of a prefix is a prefix of the
 * transcript: each is hashed from where the one before ended, not from its first message again
 * (on the agents bench's session, ten originals of 41–205 MB: 1.1 GB hashed, now 205 MB).
 *
 * Only messages the resolver has read for the range being resolved are hashed, and a hash kept
 * is used again only for the same message objects at the same places (compared one by one): the
 * bytes a hash stands for are those of the messages the resolver returns. A list that makes a new
 * object at each read (a file-backed one) never matches, and is hashed whole as without the memo.
 * Pure: the running hash is the caller's (node:crypto's on the Node side).
 */
import { sourceWindows } from '../format/bytes';
import type { ByteSource, ChatMessage } from '../format/types';

/** A SHA-256 fed in pieces whose state can be copied (node:crypto's Hash). */
export interface RunningSha256 {
  update(bytes: Uint8Array): void;
  copy(): RunningSha256;
  /** The hex digest; the hash is not fed after. */
  digestHex(): string;
}

/** The messages hashed from one start, the running hash after them, and the digests of the prefixes asked for. */
interface Run {
  messages: ChatMessage[];
  state: RunningSha256;
  digests: Map<number, string>;
}

export class TranscriptHashes {
  /** By the range's first index. */
  private readonly runs = new Map<number, Run>();
  /** Bytes fed to the running hashes (tests count them). */
  hashedBytes = 0;

  constructor(private readonly fresh: () => RunningSha256) {}

  /**
   * The hex SHA-256 of the transcript of `messages` (the list's messages from view index `start`),
   * whose bytes `transcript(from)` gives from its `from`-th message on; undefined when no kept run
   * reaches it (a shorter range after a longer one, another list): the caller hashes it whole.
   */
  hash(start: number, messages: readonly ChatMessage[], transcript: (from: number) => ByteSource): string | undefined {
    let run = this.runs.get(start);
    if (run) {
      const common = Math.min(run.messages.length, messages.length);
      let same = 0;
      while (same < common && run.messages[same] === messages[same]) same++;
      if (same < common) run = undefined;
      else if (messages.length <= run.messages.length) return run.digests.get(messages.length);
    }
    if (!run) {
      run = { messages: [], state: this.fresh(), digests: new Map() };
      this.runs.set(start, run);
    }
    const from = run.messages.length;
    try {
      for (const window of sourceWindows(transcript(from))) {
        run.state.update(window);
        this.hashedBytes += window.length;
      }
    } catch (e) {
      // A content that could not be read part way: the run's state is not of whole messages any more.
      this.runs.delete(start);
      throw e;
    }
    for (let k = from; k < messages.length; k++) run.messages.push(messages[k] as ChatMessage);
    const digest = run.state.copy().digestHex();
    run.digests.set(messages.length, digest);
    return digest;
  }
}

/**
 * The frames of a zstd entry, read from their headers before any decoder sees them (RFC 8878 §3.1),
 * so that what a frame declares — its window, its content size — is checked against what the zip
 * entry states before anything is allocated for it. A decoder sizes its buffers from the frame
 * header: fzstd's streaming decoder allocates the whole declared window (and moves it at every
 * block), Node's allocates it too; a 300-byte entry can declare a window of 1.875 GiB.
 *
 * Pure: no I/O. Frames are walked block by block (each block header gives its compressed length),
 * so every frame of a multi-frame entry is checked, skippable frames are stepped over, and a frame
 * cut short or followed by bytes that are no frame is damage.
 */

const ZSTD_MAGIC = 0xfd2fb528;
/** Skippable frames: magic 0x184D2A50–0x184D2A5F (RFC 8878 §3.1.2). */
const isSkippableMagic = (m: number): boolean => m >>> 4 === 0x184d2a5;
/** Block_Maximum_Size (RFC 8878 §3.1.1.2.3): a block never holds more than 128 KiB. */
const MAX_BLOCK_BYTES = 128 * 1024;

/**
 * The largest window allowed whatever the entry states: 2^27 bytes (128 MiB), the limit zstd's own
 * decoder applies unless told otherwise (ZSTD_WINDOWLOG_LIMIT_DEFAULT). Writers that do not know the
 * content size in advance (Python's zipfile streams) declare their level's window, 2 MiB at the
 * default level and 128 MiB at the highest: such a frame decodes here as it does with the zstd tool.
 */
export const ZSTD_WINDOW_FLOOR = 2 ** 27;

/** One zstd frame of an entry: where it lies in the entry's raw bytes, and what its header declares. */
export interface ZstdFrame {
  start: number;
  end: number;
  /** Frame_Content_Size, when the header has it. */
  contentSize: number | undefined;
  /** The window a decoder sizes its buffer from: Window_Descriptor's, or the content size for a single-segment frame. */
  window: number;
}

/** The window a frame's header declares (RFC 8878 §3.1.1.1.2): 2^(10 + exponent) plus mantissa eighths of it. */
export function windowSize(descriptor: number): number {
  const base = 2 ** (10 + (descriptor >>> 3));
  return base + (base / 8) * (descriptor & 7);
}

/** A little-endian unsigned integer of `n` bytes (1, 2, 4 or 8) at `at`, as a JS number (exact to 2^53). */
const readLE = (b: Uint8Array, at: number, n: number): number => {
  let v = 0;
  for (let k = n - 1; k >= 0; k--) v = v * 256 + (b[at + k] as number);
  return v;
};

/**
 * The frames of a zstd entry's raw bytes, each checked against `stated` (the inflated size the zip
 * directory states for the entry): a window over `max(stated, ZSTD_WINDOW_FLOOR)`, a content size
 * over `stated`, or content sizes that do not add up to `stated` are refused, as is any damage that
 * makes the frames unreadable. Answers why not (a sentence to follow "the zstd data …"; `hostile` when
 * it declares or makes more than the entry may, rather than being damaged) or the frames.
 */
export function zstdFrames(raw: Uint8Array, stated: number): { frames: ZstdFrame[] } | { error: string; hostile?: true } {
  const frames: ZstdFrame[] = [];
  const windowCap = Math.max(stated, ZSTD_WINDOW_FLOOR);
  let declared = 0;
  let atLeast = 0;
  let allDeclared = true;
  let at = 0;
  while (at < raw.length) {
    if (raw.length - at < 4) return { error: `ends inside a frame's magic number at byte ${at}` };
    const magic = readLE(raw, at, 4);
    if (isSkippableMagic(magic)) {
      if (raw.length - at < 8) return { error: `ends inside a skippable frame's header at byte ${at}` };
      const next = at + 8 + readLE(raw, at + 4, 4);
      if (next > raw.length) return { error: `has a skippable frame at byte ${at} running past its end` };
      at = next;
      continue;
    }
    if (magic !== ZSTD_MAGIC) return { error: `holds no zstd frame at byte ${at} (magic ${magic.toString(16)})` };
    const frame = frameHeader(raw, at);
    if ('error' in frame) return frame;
    if (frame.contentSize !== undefined) {
      declared += frame.contentSize;
      if (declared > stated) return { error: `declares ${frame.contentSize} bytes of content in the frame at byte ${at}, more than the ${stated} the archive states for the whole entry`, hostile: true };
    } else allDeclared = false;
    if (frame.window > windowCap) {
      return { error: `declares a window of ${frame.window} bytes in the frame at byte ${at}, over the ${windowCap} a decoder may allocate for an entry stated as ${stated} bytes (a zstd window bomb)`, hostile: true };
    }
    const blocks = walkBlocks(raw, frame.blocksStart, frame.checksum);
    if (typeof blocks === 'string') return { error: `${blocks} (the frame at byte ${at})` };
    // Raw and RLE blocks say how much they make: more than the entry states is a bomb, told before decoding.
    atLeast += blocks.atLeast;
    if (atLeast > stated) return { error: `inflates past the ${stated} bytes the archive states (its raw and RLE blocks alone make ${atLeast} by the frame at byte ${at})`, hostile: true };
    if (frame.contentSize !== undefined && blocks.atLeast > frame.contentSize) return { error: `makes more than the ${frame.contentSize} bytes its frame at byte ${at} declares`, hostile: true };
    frames.push({ start: at, end: blocks.end, contentSize: frame.contentSize, window: frame.window });
    at = blocks.end;
  }
  if (frames.length === 0 && stated > 0) return { error: 'holds no zstd frame' };
  if (allDeclared && declared !== stated) return { error: `declares ${declared} bytes of content, not the ${stated} the archive states`, hostile: true };
  return { frames };
}

/** The header of the frame at `at`: its declarations and where its first block starts. */
function frameHeader(raw: Uint8Array, at: number): { window: number; contentSize: number | undefined; checksum: boolean; blocksStart: number } | { error: string } {
  // Frame_Header_Descriptor: FCS_Flag (2 bits), Single_Segment, unused, reserved, Content_Checksum, Dictionary_ID_Flag (2 bits).
  const descriptor = raw[at + 4];
  if (descriptor === undefined) return { error: `ends inside the frame header at byte ${at}` };
  if (descriptor & 0x08) return { error: `sets the reserved bit of the frame header at byte ${at}` };
  const fcsFlag = descriptor >>> 6;
  const singleSegment = (descriptor & 0x20) !== 0;
  const dictBytes = [0, 1, 2, 4][descriptor & 3] as number;
  const fcsBytes = fcsFlag === 0 ? (singleSegment ? 1 : 0) : 2 ** fcsFlag;
  let p = at + 5;
  const windowDescriptor = singleSegment ? undefined : raw[p++];
  p += dictBytes;
  if (p + fcsBytes > raw.length || (!singleSegment && windowDescriptor === undefined)) return { error: `ends inside the frame header at byte ${at}` };
  // A 2-byte content size is stored minus 256 (RFC 8878 §3.1.1.1.4).
  const contentSize = fcsBytes === 0 ? undefined : readLE(raw, p, fcsBytes) + (fcsBytes === 2 ? 256 : 0);
  p += fcsBytes;
  const window = windowDescriptor === undefined ? (contentSize as number) : windowSize(windowDescriptor);
  return { window, contentSize, checksum: (descriptor & 0x04) !== 0, blocksStart: p };
}

/** Where the frame whose blocks start at `p` ends (after its checksum) and how many bytes its raw and RLE blocks make, or what is wrong with its blocks. */
function walkBlocks(raw: Uint8Array, p: number, checksum: boolean): { end: number; atLeast: number } | string {
  let atLeast = 0;
  for (;;) {
    if (p + 3 > raw.length) return `ends inside a block header at byte ${p}`;
    const h = readLE(raw, p, 3);
    const last = (h & 1) === 1;
    const type = (h >>> 1) & 3;
    const size = h >>> 3;
    if (type === 3) return `has a block of the reserved type at byte ${p}`;
    if (size > MAX_BLOCK_BYTES) return `has a block of ${size} bytes at byte ${p}, over zstd's 128 KiB`;
    // Raw and compressed blocks carry `size` bytes; an RLE block carries its one byte and makes `size`.
    if (type !== 2) atLeast += size;
    p += 3 + (type === 1 ? 1 : size);
    if (p > raw.length) return 'ends inside a block';
    if (last) break;
  }
  p += checksum ? 4 : 0;
  return p > raw.length ? 'ends inside its checksum' : { end: p, atLeast };
}

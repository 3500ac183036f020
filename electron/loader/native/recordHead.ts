/** How a native sidecar record starts, read from a line's first bytes before it is parsed. */

/** The `t` of a record from its first bytes (`{"t":"message",…`), a UTF-8 byte order mark allowed. */
export const RECORD_TYPE_HEAD = /^\uFEFF?\s*\{\s*"t"\s*:\s*"([\w-]{1,64})"/;
/** How a sidecar record starts (`{"t":"…`), a UTF-8 byte order mark allowed. */
export const SIDECAR_RECORD_HEAD = /^\uFEFF?\s*\{\s*"t"\s*:\s*"/;

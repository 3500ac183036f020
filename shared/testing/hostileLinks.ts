/**
 * Hostile protocol links (SPEC §12), shared by the pure parser's tests (`shared/links/protocolLink.test.ts`)
 * and the shell's (`electron/main/protocolOpen.test.ts`): each must be refused with a sentence,
 * before anything looks at the disk.
 */

/**
 * Links to a network share or a device, in every spelling a link can carry: on Windows, opening
 * any of these connects to the host over SMB (and can send the user's NTLM hash) or opens a device.
 */
export const UNC_LINKS: readonly (readonly [string, string])[] = [
  ['a UNC path', 'session-inspector://open?file=\\\\host\\share\\s.jsonl'],
  ['a percent-encoded UNC path', 'session-inspector://open?file=%5C%5Chost%5Cshare%5Cs.jsonl'],
  ['a UNC path with forward slashes', 'session-inspector://open?file=//host/share/s.jsonl'],
  ['a percent-encoded forward-slash UNC path', 'session-inspector://open?file=%2F%2Fhost%2Fshare%2Fs.jsonl'],
  ['a UNC path of mixed slashes', 'session-inspector://open?file=/%5Chost%5Cshare%5Cs.jsonl'],
  ['a UNC path of mixed slashes the other way', 'session-inspector://open?file=%5C/host/share/s.jsonl'],
  ['a verbatim UNC path', 'session-inspector://open?file=%5C%5C%3F%5CUNC%5Chost%5Cshare%5Cs.jsonl'],
  ['a verbatim drive path', 'session-inspector://open?file=\\\\?\\C:\\s.jsonl'],
  ['a device path', 'session-inspector://open?file=%5C%5C.%5CPhysicalDrive0'],
  ['a device path with forward slashes', 'session-inspector://open?file=//./pipe/x'],
  ['an NT object path', 'session-inspector://open?file=%5C%3F%3F%5CUNC%5Chost%5Cshare%5Cs.jsonl'],
  ['an NT object path with forward slashes', 'session-inspector://open?file=/%3F%3F/C:/s.jsonl'],
  ['a UNC path as the second file', 'session-inspector://open?file=/tmp/a.jsonl&file=%5C%5Chost%5Cs%5Cb.jsonl'],
];

/**
 * Links whose refusal quotes a bidi override, an isolate, a zero-width space, an escape or a line
 * separator: the sentence must show each as a visible symbol, never raw.
 */
export const BIDI_LINKS: readonly (readonly [string, string])[] = [
  ['a bidi override in a relative path', 'session-inspector://open?file=invoice%E2%80%AEfdp.exe'],
  ['a bidi isolate in the action', 'session-inspector://open\u2066x?file=/a'],
  ['a raw bidi override in the action', 'session-inspector://\u202Enepo?file=/a'],
  ['an escape sequence in a path', 'session-inspector://open?file=rel%1B%5D52%3Bc%3Bcm0gLXJmIH4%3D%07'],
  ['a zero-width space and a line separator in a UNC path', 'session-inspector://open?file=%5C%5Ch%E2%80%8Bost%E2%80%A8%5Cs'],
];

/**
 * The HTTP host's protocol (electron/host/http.ts serves it, renderer/bridge.ts speaks it): every
 * request carries the access token, in the header on API calls or as `?token=`; `POST` a method's
 * params as JSON to `apiPath(method)`; events stream from EVENTS_PATH; a file's bytes go to
 * UPLOAD_PATH. Header names are lower case, as Node hands them over (HTTP does not tell case apart).
 */
export const TOKEN_HEADER = 'x-session-inspector-token';
/** The query parameter that carries the access token: the page's address, the event stream (and any API call). */
export const TOKEN_PARAM = 'token';
/**
 * The header that names the window's session on API calls and uploads (SPEC §14: one session per
 * tab); without it a request means the host's one session. The handle comes from HANDLE_PATH.
 */
export const SESSION_HEADER = 'x-session-inspector-session';
/** The query parameter that names the window's session on the event stream (an EventSource sets no header). */
export const SESSION_PARAM = 'session';
/** The header that carries an uploaded file's name, percent-encoded: a label only, never a path. */
export const UPLOAD_NAME_HEADER = 'x-session-inspector-file-name';
/** Every path of the API is this or under it; the rest of the host's paths are the renderer's static files. */
export const API_ROOT = '/api';
/** `GET`: the host's events as Server-Sent Events, one `HostEvent` as JSON per message. */
export const EVENTS_PATH = `${API_ROOT}/events`;
/** `POST` a file's bytes (`application/octet-stream`, its length declared) to open it; the reply is `openFile`'s. */
export const UPLOAD_PATH = `${API_ROOT}/upload`;

/** `POST`: a session handle for a new tab (`{ ok: true, value: { handle } }`); docs/sessions-and-links.md. */
export const HANDLE_PATH = `${API_ROOT}/handle`;

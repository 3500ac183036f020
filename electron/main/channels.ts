/**
 * The IPC channel names shared by the main process and the preload. This file has no runtime
 * imports (only types), so the sandboxed preload bundle pulls in nothing else through it.
 */
import type { Method } from '../../shared/contract';

/** Every channel of the app starts with this prefix; anything else is not ours. */
export const CHANNEL_PREFIX = 'si:';

/**
 * One invoke channel per contract method. Typed as an exact record over `Method`, so a method
 * added to (or removed from) the contract fails to compile here until its channel is added.
 */
export const METHOD_CHANNELS = {
  state: 'si:state',
  openFile: 'si:openFile',
  openLink: 'si:openLink',
  openDialog: 'si:openDialog',
  close: 'si:close',
  rows: 'si:rows',
  rowOfIndex: 'si:rowOfIndex',
  rowText: 'si:rowText',
  expand: 'si:expand',
  search: 'si:search',
  cancelSearch: 'si:cancelSearch',
  log: 'si:log',
  verify: 'si:verify',
  check: 'si:check',
  calls: 'si:calls',
  instructions: 'si:instructions',
  // Part B.
  callDiff: 'si:callDiff',
  sessionEvents: 'si:sessionEvents',
  abandoned: 'si:abandoned',
  // Folder serving.
  folder: 'si:folder',
  library: 'si:library',
  librarySearch: 'si:librarySearch',
  // 
  reproBundle: 'si:reproBundle',
  cancelBundle: 'si:cancelBundle',
  // Policy replay, the what-if view.
  replay: 'si:replay',
  whatIf: 'si:whatIf',
  exportCall: 'si:exportCall',
  tokenMap: 'si:tokenMap',
  callTokens: 'si:callTokens',
  hiddenTokens: 'si:hiddenTokens',
  // Every match of a search, a page at a time.
  searchPage: 'si:searchPage',
  trace: 'si:trace',
  // 
  setFollow: 'si:setFollow',
  // Session documents.
  exportDocument: 'si:exportDocument',
} as const satisfies { [M in Method]: `si:${M}` };

/** The contract's method names, in the order of METHOD_CHANNELS (the same set as METHOD_NAMES). */
export const CHANNEL_METHOD_NAMES = Object.keys(METHOD_CHANNELS) as Method[];

/** Invoke: a dropped file's path, resolved in the preload with `webUtils.getPathForFile`. */
export const OPEN_DROPPED_CHANNEL = 'si:openDropped';

/** Main → renderer: every host event (`HostEvent`), including the menu's `command` events. */
export const EVENT_CHANNEL = 'si:event';

/** The name of the one object the preload exposes in the renderer's main world. */
export const BRIDGE_GLOBAL = 'sessionInspector';

/**
 * Opening files from the browser. A file picked with `Open file…` or dropped on the page
 * (uploaded over HTTP, its path resolved by the desktop shell), one at a time; and the sessions of
 * the folder `serve DIR` serves, listed and opened by entry id.
 */
import type { ResultOf } from '../../shared/contract';
import type { SliceCreator } from './appState';

export type FolderListing = ResultOf<'folder'>;

export interface FolderSlice {
  /** The served folder's listing; null when the host serves none (or it was not asked yet). */
  folder: FolderListing | null;
  /** The name of the file being uploaded, while it is. */
  uploading: string | null;
  /** Reads the folder listing again (a file that appeared since is offered). */
  loadFolder: () => Promise<void>;
  openFolderEntry: (id: string) => Promise<void>;
  /**
   * Opens files picked or dropped. One at a time: several at once (a sidecar and its snapshot)
   * open nothing and say so, rather than guess which of them was meant.
   */
  openFiles: (files: readonly File[]) => Promise<void>;
}

export const ONE_FILE_AT_A_TIME_HINT = 'Open one file at a time. A sidecar and its snapshot together: start the host with both, npx session-inspector serve SIDECAR SNAPSHOT.';

export const createFolderSlice: SliceCreator<FolderSlice> = (deps) => (set, get) => {
  /** The offered files again, so the file list names what was just opened. */
  const refreshOffered = async (): Promise<void> => {
    const state = await deps.api.state({});
    if (state.ok) set({ offeredFiles: state.value.files });
  };

  /** Files given to `openFiles` so far: the last one's upload is the one the status names. */
  let given = 0;
  return {
    folder: null,
    uploading: null,

    async loadFolder() {
      const reply = await deps.api.folder({});
      if (reply.ok) return set({ folder: reply.value });
      if (reply.error.code !== 'not_supported') get().pushAlert(reply.error.message, 'Check that the folder is still there, then refresh the list.');
    },

    async openFolderEntry(id) {
      await get().openOffered(id);
      await refreshOffered();
    },

    async openFiles(files) {
      if (files.length === 0) return;
      if (files.length > 1) return get().pushAlert(`${files.length} files were given at once; nothing was opened.`, ONE_FILE_AT_A_TIME_HINT);
      const file = files[0] as File;
      const mine = ++given;
      set({ uploading: get().host === 'http' ? file.name : null });
      try {
        await get().openDropped(file);
      } finally {
        // A file dropped meanwhile (which supersedes this one, whatever its name) is still being uploaded: its name stays.
        if (given === mine) set({ uploading: null });
      }
      await refreshOffered();
    },
  };
};

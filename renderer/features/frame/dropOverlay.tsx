/**
 * Drag and drop of a session file anywhere on the window. The desktop app opens it by its path;
 * over HTTP (the browser never reveals a path) it is uploaded. One file at a time (FolderSlice).
 */
import { useEffect, useState } from 'react';
import type { AppStore } from '../../store/store';
import './dropOverlay.css';

function hasFiles(e: DragEvent): boolean {
  return e.dataTransfer?.types.includes('Files') ?? false;
}

export function DropOverlay({ store }: { store: AppStore }) {
  const [over, setOver] = useState(false);

  useEffect(() => {
    let depth = 0;
    const onEnter = (e: DragEvent): void => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth++;
      setOver(true);
    };
    const onOver = (e: DragEvent): void => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const onLeave = (e: DragEvent): void => {
      if (!hasFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setOver(false);
    };
    const onDrop = (e: DragEvent): void => {
      if (!hasFiles(e)) return;
      // Never let the browser navigate to the dropped file.
      e.preventDefault();
      depth = 0;
      setOver(false);
      void store.getState().openFiles(Array.from(e.dataTransfer?.files ?? []));
    };
    window.addEventListener('dragenter', onEnter);
    window.addEventListener('dragover', onOver);
    window.addEventListener('dragleave', onLeave);
    window.addEventListener('drop', onDrop);
    return () => {
      window.removeEventListener('dragenter', onEnter);
      window.removeEventListener('dragover', onOver);
      window.removeEventListener('dragleave', onLeave);
      window.removeEventListener('drop', onDrop);
    };
  }, [store]);

  if (!over) return null;
  return (
    <div className="drop-overlay" aria-hidden="true">
      <p>Drop a sidecar (.sidecar.jsonl) or session snapshot (.session.json) to open it</p>
    </div>
  );
}

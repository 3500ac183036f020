/** `Copy link`: the address of the place the app is at (see shareableUrl.ts for what it carries). */
import { useState } from 'react';
import { linkOfState } from '../../store/linkSlice';
import { useAppStore } from '../../store/storeContext';
import { useApp } from '../../store/storeContext';
import { copyText } from './copyText';
import { shareableUrl } from './shareableUrl';
import './copy.css';

export function CopyLinkButton() {
  const store = useAppStore();
  const hasSession = useApp((s) => s.session !== null);
  const [status, setStatus] = useState('');
  if (!hasSession) return null;
  return (
    <>
      <button
        type="button"
        title="Copy the address of this place: the model call, the open reduction and its range, the search"
        onClick={() => {
          const s = store.getState();
          const url = shareableUrl(s.host, window.location, s.session?.files.map((f) => f.path) ?? [], linkOfState(s));
          void copyText(url, 'the link').then(setStatus);
        }}
      >
        Copy link
      </button>
      <span className="copy-status" role="status">
        {status}
      </span>
    </>
  );
}

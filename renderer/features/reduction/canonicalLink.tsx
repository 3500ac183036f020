/**
 * A duplicate's way to its canonical: a button that goes to the canonical
 * message, and whether the model could still see it there. The host says both (`verify`'s
 * `canonical`): a canonical that another reduction hides means the duplicate hid real content.
 */
import type { ReductionStatus } from '../../../shared/contract';
import { useApp } from '../../store/storeContext';
import './canonicalLink.css';

export function canonicalNote(canonical: NonNullable<ReductionStatus['canonical']>): string {
  return canonical.visible ? 'the model still saw the canonical' : 'the canonical is hidden too: this duplicate hid real content';
}

export function CanonicalLink({ id }: { id: string }) {
  const canonical = useApp((s) => s.statuses.get(id)?.canonical);
  const goToIndex = useApp((s) => s.goToIndex);
  if (!canonical) return null;
  return (
    <span className={`canonical-link${canonical.visible ? '' : ' is-hidden'}`}>
      <button
        type="button"
        className="canonical-link-button"
        onClick={(e) => {
          // The row under the chip would select itself; this goes elsewhere.
          e.stopPropagation();
          void goToIndex(canonical.index);
        }}
      >
        Go to canonical message {canonical.index}
      </button>{' '}
      <span className="canonical-link-note">({canonicalNote(canonical)})</span>
    </span>
  );
}

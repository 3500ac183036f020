/**
 * The reductions of a row other than the one whose stub it shows ("Also reduced:", "Inside this
 * range:"). A row can carry any number of them (a cleared range of 100,000 messages, or a file
 * that addresses one message 100,000 times): the first CHIPS_SHOWN are chips in the row, the rest
 * sit behind one `N more reductions` button that opens a virtualized list of the same chips.
 *
 * Invariants: whatever the count, the row holds at most CHIPS_SHOWN chips plus the list's
 * viewport worth (MORE_LIST_MAX_PX / MORE_ITEM_PX + overscan); every chip is the same StubChip
 * (`button` named `Expand reduction <id>…`, SPEC §7.1), which asks `verify` for itself only
 * while it is mounted.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import type { KeyboardEvent } from 'react';
import { useEffect, useId, useRef, useState } from 'react';
import type { ProjectedRowInfo } from '../../../shared/contract';
import { useApp } from '../../store/storeContext';
import { StubChip } from './stubChip';
import './otherReductions.css';

type RowReduction = ProjectedRowInfo['reductions'][number];

/** Chips shown in the row itself; past this, one button opens the list of the rest. */
export const CHIPS_SHOWN = 8;
/** Height of one chip in the list (the chip's 18 px line, padding, border and gap). */
const MORE_ITEM_PX = 30;
/** The list's viewport: past this it scrolls. */
const MORE_LIST_MAX_PX = 300;

/** `reductions` split into the chips shown in the row and the rest, in log order. */
export function splitChips<T>(reductions: readonly T[], shown = CHIPS_SHOWN): { inline: readonly T[]; rest: readonly T[] } {
  return reductions.length <= shown ? { inline: reductions, rest: [] } : { inline: reductions.slice(0, shown), rest: reductions.slice(shown) };
}

interface Props {
  reductions: readonly RowReduction[];
  label: string;
  /** Names the list: `More reductions of Message 2 tool`. */
  rowName: string;
}

export function OtherReductions({ reductions, label, rowName }: Props) {
  const { inline, rest } = splitChips(reductions);
  // Open by row and by what it lists: it stays open when the row is mounted again.
  const listKey = `${rowName}|${rest[0]?.id ?? ''}`;
  const listOpen = useApp((st) => st.openReductionLists.has(listKey));
  const toggleList = useApp((st) => st.toggleReductionList);
  const listId = useId();
  const count = rest.length.toLocaleString('en-US');
  return (
    <div className="row-other-reductions">
      <span className="row-other-label">{label}</span>
      {inline.map((r) => (
        <StubChip key={r.id} id={r.id} kind={r.kind} />
      ))}
      {rest.length > 0 && (
        <button
          type="button"
          className="more-reductions-toggle"
          aria-expanded={listOpen}
          aria-controls={listOpen ? listId : undefined}
          onClick={(e) => {
            // Not a row click: opening the list does not move the selection.
            e.stopPropagation();
            toggleList(listKey);
          }}
        >
          {/* One name, open or closed: aria-expanded says which. */}
          <span aria-hidden="true">{listOpen ? '▾ ' : '▸ '}</span>
          {`${count} more reductions`}
        </button>
      )}
      {listOpen && rest.length > 0 && <MoreReductionsList id={listId} reductions={rest} name={`More reductions of ${rowName}`} />}
    </div>
  );
}

/**
 * The rest of a row's reductions, virtualized: only the chips near the list's viewport are in the
 * DOM. Tab walks the mounted chips (the list scrolls as focus moves); the arrows, Home and End move
 * focus chip by chip through all of them.
 */
function MoreReductionsList({ id, reductions, name }: { id: string; reductions: readonly RowReduction[]; name: string }) {
  const scrollerRef = useRef<HTMLDivElement>(null);
  const [focusTarget, setFocusTarget] = useState<number | null>(null);
  const virtualizer = useVirtualizer({
    count: reductions.length,
    getScrollElement: () => scrollerRef.current,
    estimateSize: () => MORE_ITEM_PX,
    overscan: 4,
    // Not `data-index`: inside the projected view that attribute names a row's view index.
    indexAttribute: 'data-more-index',
  });
  const items = virtualizer.getVirtualItems();

  // Focus the chip a key asked for once it is rendered (it may have been scrolled into being).
  useEffect(() => {
    if (focusTarget === null) return;
    const chip = scrollerRef.current?.querySelector<HTMLElement>(`[data-more-index="${focusTarget}"] button`);
    if (chip) {
      chip.focus();
      setFocusTarget(null);
    }
  }, [focusTarget, items]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    const at = (e.target as HTMLElement).closest('[data-more-index]')?.getAttribute('data-more-index');
    if (at === null || at === undefined) return;
    const current = Number(at);
    const last = reductions.length - 1;
    const target = e.key === 'ArrowDown' ? current + 1 : e.key === 'ArrowUp' ? current - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? last : null;
    if (target === null) return;
    // Handled here: neither the view's scroll keys nor the window's shortcuts see it.
    e.preventDefault();
    e.stopPropagation();
    const clamped = Math.max(0, Math.min(last, target));
    virtualizer.scrollToIndex(clamped, { align: 'auto' });
    setFocusTarget(clamped);
  };

  return (
    <div
      ref={scrollerRef}
      id={id}
      className="more-reductions"
      role="group"
      aria-label={name}
      style={{ height: Math.min(MORE_LIST_MAX_PX, reductions.length * MORE_ITEM_PX) }}
      onKeyDown={onKeyDown}
    >
      <div className="more-reductions-sizer" style={{ height: virtualizer.getTotalSize() }}>
        <div className="more-reductions-window" style={{ transform: `translateY(${items[0]?.start ?? 0}px)` }}>
          {items.map((item) => {
            const r = reductions[item.index];
            return (
              r && (
                <div key={item.key} ref={virtualizer.measureElement} data-more-index={item.index} className="more-reductions-item">
                  <StubChip id={r.id} kind={r.kind} />
                </div>
              )
            );
          })}
        </div>
      </div>
    </div>
  );
}

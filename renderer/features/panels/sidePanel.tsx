/** The side panel: a `Panels` tablist with Search, Log, Findings (with its count once checked), Diff and What if. */
import type { KeyboardEvent } from 'react';
import { useRef } from 'react';
import type { PanelTab } from '../../store/uiSlice';
import { useApp } from '../../store/storeContext';
import { DiffPanel } from '../diff/diffPanel';
import { FindingsPanel } from '../findings/findingsPanel';
import { PolicyEditor } from '../policy/policyEditor';
import { ReductionLog } from '../log/reductionLog';
import { SearchPanel } from '../search/searchPanel';
import './sidePanel.css';
import { findingsTotal } from '../../store/findingsSlice';

const TABS: PanelTab[] = ['search', 'log', 'findings', 'diff', 'whatif'];

function tabLabel(tab: PanelTab, findings: number | null): string {
  if (tab === 'search') return 'Search';
  if (tab === 'log') return 'Log';
  if (tab === 'diff') return 'Diff';
  if (tab === 'whatif') return 'What if';
  return findings === null ? 'Findings' : `Findings (${findings})`;
}

export function SidePanel() {
  const active = useApp((s) => s.activeTab);
  const setTab = useApp((s) => s.setActiveTab);
  // A replay's divergences count among the findings once it ran.
  const findings = useApp((s) => (s.checkStatus === 'done' ? (findingsTotal(s.checkReport) ?? 0) + (s.replayStatus === 'done' ? (s.replayResult?.findings.length ?? 0) : 0) : null));
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    const at = TABS.indexOf(active);
    let next: number;
    if (e.key === 'ArrowRight') next = (at + 1) % TABS.length;
    else if (e.key === 'ArrowLeft') next = (at + TABS.length - 1) % TABS.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = TABS.length - 1;
    else return;
    e.preventDefault();
    setTab(TABS[next] ?? 'search');
    tabRefs.current[next]?.focus();
  };

  return (
    <aside className="side-panel" aria-label="Side panel">
      <div className="side-panel-tabs" role="tablist" aria-label="Panels" onKeyDown={onKeyDown}>
        {TABS.map((tab, k) => (
          <button
            key={tab}
            ref={(el) => {
              tabRefs.current[k] = el;
            }}
            type="button"
            role="tab"
            id={`tab-${tab}`}
            aria-selected={active === tab}
            aria-controls={`panel-${tab}`}
            tabIndex={active === tab ? 0 : -1}
            className="side-panel-tab"
            onClick={() => setTab(tab)}
          >
            {tabLabel(tab, tab === 'findings' ? findings : null)}
          </button>
        ))}
      </div>
      <div className="side-panel-body" role="tabpanel" id={`panel-${active}`} aria-labelledby={`tab-${active}`}>
        {active === 'search' && <SearchPanel />}
        {active === 'log' && <ReductionLog />}
        {active === 'findings' && <FindingsPanel />}
        {active === 'diff' && <DiffPanel />}
        {active === 'whatif' && <PolicyEditor />}
      </div>
    </aside>
  );
}

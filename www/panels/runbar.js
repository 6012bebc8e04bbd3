// The run bar of a panel: Run / Stop / Copy link, the progress bar and line, and the message line (errors are
// also kept in the panel's `errors`, read by tests and lessons). Built for the generated panels, or attached to
// the tune panel's markup in index.html (ids without a prefix).
import { el } from '../shared/dom.js';

export class RunBar {
  /**
   * @param {(k: string) => string} idOf  element id of a part: run, stop, copy-link, progress, stats, message
   * @param {string[]} errors  the panel's error list (appended to)
   */
  constructor(idOf, errors) {
    this.idOf = idOf;
    this.errors = errors;
    /** whether Run or Stop had focus when the run started (focus returns to Run at its end) */
    this.hadFocus = false;
  }

  /** A part of the bar. @param {string} k */
  part(k) { return /** @type {HTMLElement & {disabled: boolean, value: number}} */ (document.getElementById(this.idOf(k))); }

  /**
   * The bar's markup (for panels built in JS).
   * @param {string} title @param {string} readyText
   */
  build(title, readyText) {
    const P = this.idOf;
    return el('div', { class: 'runbar card' },
      el('div', { class: 'buttons' },
        el('button', { type: 'button', id: P('run'), class: 'primary', text: 'Run' }),
        el('button', { type: 'button', id: P('stop'), class: 'stop', disabled: true, text: 'Stop' }),
        el('button', { type: 'button', id: P('copy-link'), title: 'Copy a link that reproduces these settings', text: 'Copy link' })),
      el('div', { class: 'progress-wrap' },
        el('progress', { id: P('progress'), max: 1, value: 0, 'aria-label': `${title} run progress` }),
        el('p', { class: 'stats', id: P('stats'), text: readyText }),
        el('p', { class: 'time-estimate', id: P('time'), 'aria-live': 'polite' })),
      el('p', { class: 'message', id: P('message'), role: 'alert', 'aria-live': 'assertive' }));
  }

  /**
   * Wires the buttons: `run`, `stop`, and `link()` (writes the hash) before copying the page address.
   * @param {{run: () => unknown, stop: () => unknown, link: () => void}} on
   */
  wire(on) {
    // The keyboard shortcuts (www/panels/registry.js) on the buttons' tooltips and for assistive technology.
    const run = this.part('run');
    run.title = 'Run these settings (Ctrl+Enter; ⌘+Enter on a Mac)';
    run.setAttribute('aria-keyshortcuts', 'Control+Enter Meta+Enter');
    this.part('stop').title = 'Stop the run and keep what it reached (Escape)';
    this.part('stop').setAttribute('aria-keyshortcuts', 'Escape');
    run.addEventListener('click', () => on.run());
    this.part('stop').addEventListener('click', () => on.stop());
    this.part('copy-link').addEventListener('click', async () => {
      on.link();
      try { await navigator.clipboard.writeText(location.href); this.message('Link copied: it reproduces these settings and seeds.', 'info'); } catch {
        this.message(`Copy this link: ${location.href}`, 'info');
      }
    });
  }

  /** @param {string} text @param {'info'|'error'} [kind] */
  message(text, kind = 'info') {
    const m = this.part('message');
    m.textContent = text;
    m.className = `message ${kind}`;
    m.dataset.kind = kind;
    if (kind === 'error' && text) this.errors.push(text);
  }

  /** @param {number|null} frac @param {string|null} [text] */
  progress(frac, text = null) {
    if (frac != null) this.part('progress').value = Math.max(0, Math.min(1, frac));
    if (text != null) { const st = this.part('stats'); st.textContent = text; st.title = text; }
  }

  /**
   * The time line under the progress line ("Estimated time", "Took"; www/shared/time-estimate.js), element id
   * `time` (the tune panel's `#eta` is MAMBA's reduction factor); created under the stats line when the bar's
   * markup has none (the tune panel's, in index.html). `data` (seconds, work, source) goes to its dataset.
   * @param {string} text @param {Record<string, string|number|null>} [data]
   */
  timeLine(text, data = {}) {
    let e = this.part('time');
    if (!e || e.tagName !== 'P') {
      const stats = this.part('stats');
      if (!stats) return;
      e = /** @type {any} */ (el('p', { class: 'time-estimate', id: this.idOf('time'), 'aria-live': 'polite' }));
      stats.after(e);
    }
    e.textContent = text;
    e.title = text;
    for (const [k, v] of Object.entries(data)) {
      if (v == null) delete e.dataset[k]; else e.dataset[k] = String(v);
    }
  }

  /**
   * Says `text` to screen readers once (the end of a run): a polite live region of the bar, visually hidden,
   * created on first use. @param {string} text
   */
  announce(text) {
    let e = this.part('announce');
    if (!e) {
      const bar = this.part('run')?.closest('.runbar');
      if (!bar) return;
      e = /** @type {any} */ (el('p', { class: 'sr-only', id: this.idOf('announce'), role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' }));
      bar.append(e);
    }
    // A changed text is announced: clear first, so the same sentence twice is said twice.
    e.textContent = '';
    requestAnimationFrame(() => { e.textContent = text; });
  }

  /** Empties the live region: what it last said no longer holds (a new file, a new run). */
  clearAnnounce() {
    const e = this.part('announce');
    if (e) e.textContent = '';
  }

  /**
   * Run is disabled while a run goes (Stop takes focus's place); when the run ends, focus goes back to Run if the
   * run had taken it from there (the disabled button would otherwise drop it to the page's body).
   * @param {boolean} on
   */
  setRunning(on) {
    const run = this.part('run');
    if (on) this.hadFocus = document.activeElement === run || document.activeElement === this.part('stop');
    run.disabled = on;
    this.part('stop').disabled = !on;
    if (!on && this.hadFocus) {
      const active = document.activeElement;
      if (!active || active === document.body || active === this.part('stop')) run.focus({ preventScroll: true });
      this.hadFocus = false;
    }
  }
}

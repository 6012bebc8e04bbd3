// End-to-end: lessons as files (src/lesson parsed in the page's worker, www/embed.js, docs/write-a-lesson.md).
// - The built-in lessons load from their files (lessons/ID.md): the Lessons menu shows the titles the core's
//   parser reads from them (the same as `tunelab lesson show`), and `#lesson=ID` fetches its file.
// - The docs' worked example, served from a SECOND origin (another loopback server that allows the page by CORS)
//   and opened from disk (the file picker; then dropped on the page), runs every step: its prediction before the run, the reveal after it,
//   its `expect` lines checked (all pass, as `tunelab lesson check` says).
// - A broken lesson shows the one `file:line` error and runs nothing.
// - A malicious lesson (script tags, `javascript:` links, an onerror image, a 50 MB file, deeply nested JSON) runs
//   nothing: no dialog, no console output of its own, no request beyond the two test origins, no injected element;
//   the oversized and the too-deep ones show one clear message.
// - `#lesson=` works from any state: on the page with another lesson open, and on the lesson's own tab.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { browser, playground, nonLoopback } from './embed-helpers.mjs';
import { LESSONS, REPO, showLesson, cli } from './lesson-files.mjs';

const EXAMPLE = 'docs/lessons/worked-example.md';
const example = showLesson(EXAMPLE);

/** A second origin (127.0.0.2) serving `files` (name -> text) with CORS for any origin. */
async function lessonHost(files) {
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url, 'http://x').pathname.slice(1));
    const headers = { 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-cache', 'Content-Type': 'text/markdown; charset=utf-8' };
    if (!(name in files)) { res.writeHead(404, headers).end('not found'); return; }
    const body = typeof files[name] === 'function' ? files[name]() : files[name];
    res.writeHead(200, { ...headers, 'Content-Length': Buffer.byteLength(body) }).end(body);
  });
  await new Promise((resolve, reject) => { server.once('error', reject); server.listen(0, '127.0.0.2', resolve); });
  const url = `http://127.0.0.2:${server.address().port}/`;
  return { url, close: () => new Promise((r) => { server.close(r); server.closeAllConnections?.(); }) };
}

/** Watches a page for what an untrusted lesson must never cause. */
function watch(page) {
  const seen = { dialogs: [], console: [], errors: [] };
  page.on('dialog', (d) => { seen.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  page.on('console', (m) => { if (/pwned|alert|XSS/i.test(m.text())) seen.console.push(m.text()); });
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  return seen;
}

const lessonState = (page) => page.evaluate(() => ({ ...window.__tunelab.lesson, report: null }));

/** Waits for the lesson box to settle after opening (ready, or one error). */
const opened = (page) => page.waitForFunction(() => ['ready', 'invalid', 'unknown', 'error'].includes(window.__tunelab?.lesson?.status), null, { timeout: 60_000 });

/**
 * Runs every step of the open lesson as a student would: apply its change, make its prediction, run, and check
 * the reveal and the expect lines. `lesson` is the CLI's parse of the same file.
 */
async function runEveryStep(page, lesson) {
  const panel = lesson.kind === 'compare' ? 'tune' : lesson.kind;
  for (let i = 0; i < lesson.steps.length; i++) {
    const s = lesson.steps[i];
    if (i > 0) await page.click('#lesson-next');
    assert.equal(await page.textContent('#lesson-step-no'), `Step ${i + 1} of ${lesson.steps.length}`);
    assert.equal(await page.textContent('#lesson-step-title'), s.title);
    if (s.patch) {
      await page.click('#lesson-apply');
      await page.waitForFunction(() => /^Changed/.test(window.__tunelab.lesson.message), null, { timeout: 30_000 });
    }
    if (s.predict?.type === 'choice') {
      assert.equal(await page.textContent('#lesson-predict legend'), s.predict.question);
      await page.check(`#lesson-predict input[value="${s.predict.answer}"]`);
    } else if (s.predict?.type === 'arm') {
      await page.waitForSelector('#predict-arms button');
      await page.click('#predict-arms button');
    }
    const runs = await page.evaluate((p) => window.__tunelab.panels[p].runs, panel);
    await page.click(panel === 'tune' ? '#run' : `#panel-${panel} .runbar button.primary`);
    await page.waitForFunction(([p, n]) => window.__tunelab.panels[p].runs > n && window.__tunelab.lesson.status === 'done', [panel, runs], { timeout: 120_000 });
    if (s.predict?.type === 'choice') {
      await page.waitForSelector('#lesson-reveal:not([hidden])');
      assert.match(await page.textContent('#lesson-reveal'), new RegExp(`Your prediction, ${s.predict.answer}, was right`));
    } else if (s.predict?.type === 'arm') {
      await page.waitForFunction(() => window.__tunelab.drill?.predict?.revealed != null, null, { timeout: 30_000 });
    }
    if (s.expect.length) {
      await page.waitForSelector('#lesson-expect:not([hidden])');
      const items = await page.$$eval('#lesson-expect li', (li) => li.map((x) => ({ cls: x.className, text: x.textContent })));
      assert.equal(items.length, s.expect.length);
      for (const it of items) assert.equal(it.cls, 'pass', it.text);
    }
  }
}

describe('lessons as files', () => {
  let b; let pg; let host;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tunelab-lessons-'));
  const exampleText = fs.readFileSync(path.join(REPO, EXAMPLE), 'utf8');
  before(async () => {
    b = await browser();
    pg = await playground({ isolation: true });
    host = await lessonHost({
      'worked-example.md': exampleText,
      'huge.md': () => `${exampleText}\n${'x'.repeat(50 * 1024 * 1024)}`,
    });
  });
  after(async () => { await b?.close(); await pg?.close(); await host?.close(); fs.rmSync(tmp, { recursive: true, force: true }); });

  test('the built-in lessons load from their files: the menu shows what the core parses from lessons/*.md', async () => {
    const page = await b.context.newPage();
    const fetched = [];
    page.on('request', (r) => { if (/\/lessons\/[\w-]+\.md$/.test(r.url())) fetched.push(new URL(r.url()).pathname); });
    await page.goto(pg.url);
    await page.waitForFunction(() => window.__tunelab?.info != null, null, { timeout: 60_000 });
    await page.click('#lessons-menu > summary');
    await page.waitForSelector('#lessons-list[data-filled="true"]');
    const links = await page.$$eval('#lessons-builtin a', (as) => as.map((a) => ({ id: a.dataset.lesson, title: a.querySelector('strong').textContent, teaches: a.querySelector('.teaches').textContent })));
    assert.deepEqual(links.map((l) => l.id), LESSONS.map((l) => l.id));
    for (const [i, l] of LESSONS.entries()) {
      assert.equal(links[i].title, l.title);
      assert.equal(links[i].teaches, l.teaches);
    }
    assert.deepEqual([...new Set(fetched)].sort(), LESSONS.map((l) => `/lessons/${l.id}.md`).sort());
    // Following one opens it without reloading the page, from its file.
    await page.evaluate(() => { window.__sameDocument = true; });
    await page.click('#lessons-builtin a[data-lesson="hoag"]');
    await opened(page);
    const st = await lessonState(page);
    assert.equal(st.status, 'ready', st.message);
    assert.equal(st.source, 'lessons/hoag.md');
    assert.equal(await page.evaluate(() => window.__sameDocument), true);
    assert.equal(await page.textContent('#lesson-h'), LESSONS.find((l) => l.id === 'hoag').title);
    // `#lesson=` from any state: another lesson while one is open, then the same tab's lesson again.
    await page.evaluate(() => { location.hash = '#lesson=lr-schedule'; });
    await page.waitForFunction(() => window.__tunelab.lesson.id === 'lr-schedule' && window.__tunelab.lesson.status === 'ready', null, { timeout: 60_000 });
    assert.equal(await page.locator('#lesson').count(), 1);
    assert.equal(await page.getAttribute('#tab-lr-schedule', 'aria-selected'), 'true');
    // The HOAG tab already showing: its lesson's link still opens the lesson.
    await page.click('#tab-hoag');
    await page.evaluate(() => { location.hash = `${location.hash}&lesson=hoag`.replace(/lesson=lr-schedule&?/, ''); });
    await page.waitForFunction(() => window.__tunelab.lesson.id === 'hoag' && window.__tunelab.lesson.status === 'ready', null, { timeout: 60_000 });
    assert.equal(await page.getAttribute('#tab-hoag', 'aria-selected'), 'true');
    assert.equal(await page.locator('#lesson').count(), 1);
    await page.close();
  });

  test('a lesson from a second origin (CORS) runs every step with its prediction and reveal; it embeds with a short snippet', async () => {
    const page = await b.context.newPage();
    const seen = watch(page);
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    const src = `${host.url}worked-example.md`;
    await page.goto(`${pg.url}#lesson-url=${encodeURIComponent(src)}`);
    await opened(page);
    const st = await lessonState(page);
    assert.equal(st.status, 'ready', st.message);
    assert.equal(st.source, src);
    assert.equal(await page.textContent('#lesson-h'), example.title);
    await runEveryStep(page, example);
    assert.deepEqual(seen.errors, []);
    assert.deepEqual(nonLoopback(requests), []);
    // The Embed dialog's snippet names the lesson's address, not its settings: a few hundred characters.
    await page.click('#copy-embed');
    const snippet = await page.inputValue('#embed-snippet');
    assert.ok(snippet.length < 400, `${snippet.length}: ${snippet}`);
    const embed = new URL(snippet.match(/src="([^"]+)"/)[1].replace(/&amp;/g, '&'));
    const p = new URLSearchParams(embed.hash.slice(1));
    assert.equal(p.get('lesson-url'), src);
    assert.equal(p.get('embed'), '1');
    await page.close();
    // The snippet's page opens the same lesson.
    const framed = await b.context.newPage();
    await framed.goto(embed.href);
    await opened(framed);
    assert.equal((await lessonState(framed)).status, 'ready');
    assert.equal(await framed.textContent('#lesson-h'), example.title);
    await framed.close();
  });

  test('a lesson opened from disk (the file picker) runs every step with its prediction and reveal', async () => {
    const page = await b.context.newPage();
    await page.goto(pg.url);
    await page.waitForFunction(() => window.__tunelab?.info != null, null, { timeout: 60_000 });
    await page.click('#lessons-menu > summary');
    await page.setInputFiles('#lesson-file', path.join(REPO, EXAMPLE));
    await opened(page);
    const st = await lessonState(page);
    assert.equal(st.status, 'ready', st.message);
    assert.equal(st.source, 'worked-example.md');
    assert.equal(new URLSearchParams((await page.evaluate(() => location.hash)).slice(1)).has('lesson'), false);
    await runEveryStep(page, example);
    // Dropped on the page: the same lesson opens again (a new box, step 1).
    await page.evaluate((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'dropped-lesson.md', { type: 'text/markdown' }));
      document.querySelector('main').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, exampleText);
    await page.waitForFunction(() => window.__tunelab.lesson.source === 'dropped-lesson.md' && window.__tunelab.lesson.status === 'ready', null, { timeout: 30_000 });
    assert.equal(await page.textContent('#lesson-step-no'), `Step 1 of ${example.steps.length}`);
    assert.equal(await page.locator('#lesson').count(), 1);
    await page.close();
  });

  test('a broken lesson shows its file:line error and runs nothing (file and pasted text)', async () => {
    const broken = exampleText.replace('"eta": 2', '"etta": 2');
    assert.notEqual(broken, exampleText, 'the example has a patch setting eta');
    const line = broken.split('\n').findIndex((l) => l.includes('"etta"')) + 1;
    const file = path.join(tmp, 'broken-lesson.md');
    fs.writeFileSync(file, broken);
    // The CLI says the same.
    const r = cli(['lesson', 'check', file]);
    assert.notEqual(r.status, 0);
    assert.match(r.stdout, new RegExp(`broken-lesson\\.md:${line}: \`tuner\\.etta\`: the tune panel has no such field; did you mean \`tuner\\.eta\`\\?`));
    const page = await b.context.newPage();
    await page.goto(pg.url);
    await page.waitForFunction(() => window.__tunelab?.info != null, null, { timeout: 60_000 });
    await page.click('#lessons-menu > summary');
    await page.setInputFiles('#lesson-file', file);
    await opened(page);
    let st = await lessonState(page);
    assert.equal(st.status, 'invalid');
    assert.equal(await page.textContent('#lesson-status'), `broken-lesson.md:${line}: \`tuner.etta\`: the tune panel has no such field; did you mean \`tuner.eta\`?`);
    assert.equal(await page.locator('#lesson-run, #lesson-apply').count(), 0);
    // Pasted: the same error, named after the paste.
    await page.click('#lessons-menu > summary');
    await page.fill('#lesson-paste', broken);
    await page.click('#lesson-open-paste');
    await page.waitForFunction(() => /^pasted text:/.test(window.__tunelab.lesson.message), null, { timeout: 30_000 });
    st = await lessonState(page);
    assert.equal(st.status, 'invalid');
    assert.match(await page.textContent('#lesson-status'), new RegExp(`^pasted text:${line}: `));
    assert.equal(await page.evaluate(() => Object.values(window.__tunelab.panels).reduce((n, p) => n + (p.runs ?? 0), 0)), 0);
    await page.close();
  });

  test('a malicious lesson runs nothing: no script, dialog, request or injected element; oversized and deeply nested files get one message', async () => {
    const evil = [
      '---', 'title: <script>console.log("XSS title")</script>Harmless', 'kind: tune', 'preset: demo',
      'cite: [paper](javascript:alert("XSS cite"))', '---',
      '<script>alert("XSS intro"); console.log("XSS intro")</script>',
      '## <img src=x onerror=alert("XSS")> Step',
      'Text <img src="http://127.0.0.9/pixel.png" onerror="console.log(\'XSS img\')"> and [a link](javascript:alert("XSS link")),',
      '[data](data:text/html,<script>alert(1)</script>), ![img](http://127.0.0.9/beacon.png) and <a href="javascript:alert(1)" onclick="alert(1)">raw</a>',
      '<style>body{display:none}</style><iframe src="http://127.0.0.9/"></iframe> [ok](https://example.org/page)',
      '```predict', 'type: choice', 'question: <b onmouseover=alert(1)>Q</b>', 'option: <script>a</script>', 'option: b', 'answer: b', 'reveal: <img src=x onerror=alert(1)>', '```',
    ].join('\n');
    const page = await b.context.newPage();
    const seen = watch(page);
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pg.url);
    await page.waitForFunction(() => window.__tunelab?.info != null, null, { timeout: 60_000 });
    await page.click('#lessons-menu > summary');
    await page.fill('#lesson-paste', evil);
    await page.click('#lesson-open-paste');
    await opened(page);
    assert.equal((await lessonState(page)).status, 'ready');
    await page.hover('#lesson-predict legend').catch(() => {});
    const inside = await page.evaluate(() => {
      const box = document.getElementById('lesson');
      const all = [...box.querySelectorAll('*')];
      return {
        bad: all.filter((e) => ['SCRIPT', 'IMG', 'STYLE', 'IFRAME', 'OBJECT', 'EMBED', 'B'].includes(e.tagName)).map((e) => e.outerHTML),
        handlers: all.filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name) || a.name === 'style' || a.name === 'src')).map((e) => e.outerHTML),
        hrefs: [...box.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')),
        text: box.textContent,
        visible: getComputedStyle(document.body).display,
      };
    });
    assert.deepEqual(inside.bad, []);
    assert.deepEqual(inside.handlers, []);
    assert.ok(inside.hrefs.every((h) => /^https?:/.test(h)), inside.hrefs.join(' '));
    assert.ok(inside.hrefs.includes('https://example.org/page'));
    assert.match(inside.text, /<script>alert\("XSS intro"\)/); // shown as text
    assert.notEqual(inside.visible, 'none');
    // Nothing ran: no dialog, no console line of the lesson's, no request off the test origins, no run.
    assert.deepEqual(seen.dialogs, []);
    assert.deepEqual(seen.console, []);
    assert.deepEqual(nonLoopback(requests), []);
    assert.deepEqual(requests.filter((u) => u.includes('127.0.0.9')), []);
    assert.equal(await page.evaluate(() => window.__tunelab.panels.tune.runs), 0);

    // A 50 MB file from disk, and from the second origin: one message, nothing read beyond the limit, nothing runs.
    const huge = path.join(tmp, 'huge.md');
    fs.writeFileSync(huge, `${exampleText}\n${'x'.repeat(50 * 1024 * 1024)}`);
    await page.click('#lessons-menu > summary');
    await page.setInputFiles('#lesson-file', huge);
    await page.waitForFunction(() => window.__tunelab.lesson.status === 'invalid', null, { timeout: 30_000 });
    assert.match(await page.textContent('#lesson-status'), /^This lesson file is 52\.\d MB; a lesson may be at most 1 MB \(it is a page of text, not data\)\. Nothing was run\.$/);
    assert.equal(await page.locator('#lesson').count(), 1);
    await page.evaluate((u) => { location.hash = `#lesson-url=${encodeURIComponent(u)}`; }, `${host.url}huge.md`);
    await page.waitForFunction(() => /52\.\d MB/.test(window.__tunelab.lesson.message) && document.getElementById('lesson-status')?.textContent.includes('at most 1 MB'), null, { timeout: 30_000 });
    assert.equal(await page.locator('#lesson').count(), 1);
    // Deeply nested JSON: one message with its file and line.
    const deep = `---\ntitle: Deep\nkind: tune\npreset: demo\n---\n## A\n\`\`\`json\n${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}\n\`\`\`\n`;
    fs.writeFileSync(path.join(tmp, 'deep.md'), deep);
    await page.click('#lessons-menu > summary');
    await page.setInputFiles('#lesson-file', path.join(tmp, 'deep.md'));
    await page.waitForFunction(() => /^deep\.md:/.test(window.__tunelab.lesson.message), null, { timeout: 30_000 });
    assert.equal(await page.textContent('#lesson-status'), 'deep.md:8: the json block is nested too deeply (a config is a few levels deep; more than 128 is refused)');
    assert.equal(await page.evaluate(() => window.__tunelab.panels.tune.runs), 0);
    assert.deepEqual(seen.dialogs, []);
    assert.deepEqual(seen.errors, []);
    await page.close();
  });
});

test('tunelab lesson check: every built-in lesson and the worked example pass and print each step\'s time', { timeout: 900_000 }, () => {
  for (const file of [...LESSONS.map((l) => `lessons/${l.id}.md`), EXAMPLE]) {
    const r = cli(['lesson', 'check', '--threads', '2', file]);
    assert.equal(r.status, 0, `${file}\n${r.stdout}`);
    const ran = r.stdout.match(/^step \d+ ".*" \(line \d+\): ran in \d+\.\d\d s$/gm) ?? [];
    assert.ok(ran.length >= 1, r.stdout);
    assert.match(r.stdout, /^ok: \d+ steps, [\d.]+ s of runs, \d+ expect lines passed, 0 failures$/m);
  }
});

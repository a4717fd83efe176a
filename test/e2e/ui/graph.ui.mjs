// The graph panel in the real workbench. (1) A small knowledge graph, extracted the way users
// get one: agent.yaml turns the pipeline and the graph on, memories are added from the palette,
// a fake Ollama on 127.0.0.1 answers the extraction with entity triples; the panel draws the
// entities (cytoscape, canvas), a click on an entity lists its memories, a click there opens
// one; an entity named with HTML and <script> stays inert text. (2) A measurement (printed, not
// asserted) of the time to first draw of 3,000 entities / 6,000 relations in the panel.
// Screenshots: test-artifacts/e2e/graph--*.png.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addMemoryFromPalette, findFrame, runCommand, waitForNotification } from './workbench.mjs';

const MODEL = 'qwen3:4b';
const XSS_ENTITY = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><b>inert-entity</b>';

/** What the fake model extracts, chosen by a word of the memory. */
const EXTRACTIONS = [
  [
    'Kafka',
    [
      { source: 'Billing Service', relationship: 'publishes to', target: 'Kafka', confidence: 0.9 },
      { source: 'Platform Team', relationship: 'owns', target: 'Kafka', confidence: 0.8 },
      { source: XSS_ENTITY, relationship: 'uses', target: 'Kafka', confidence: 0.7 },
    ],
  ],
  ['checkout', [{ source: 'Checkout Flow', relationship: 'calls', target: 'Billing Service', confidence: 0.9 }]],
];

/** A minimal Ollama (127.0.0.1, random port): /api/tags, /api/show, /api/generate. */
async function fakeOllama() {
  const calls = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      calls.push(req.url);
      const json = (o) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(o));
      };
      if (req.url === '/api/tags') return json({ models: [{ name: MODEL, model: MODEL, size: 1, digest: 'x', details: {} }] });
      if (req.url === '/api/show') return json({ details: { family: 'qwen3' }, model_info: {} });
      if (req.url === '/api/generate') {
        const prompt = String(JSON.parse(body || '{}').prompt ?? '');
        const found = EXTRACTIONS.find(([word]) => prompt.includes(word));
        return json({
          model: MODEL,
          created_at: new Date().toISOString(),
          done: true,
          response: JSON.stringify({ facts: [], entities: found ? found[1] : [] }),
        });
      }
      res.writeHead(404);
      res.end('{}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, calls, close: () => new Promise((r) => server.close(r)) };
}

async function answerInputBox(page, text) {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10000 });
  await input.fill(text);
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: 10000 }).catch(() => {});
}

const addMemory = addMemoryFromPalette;

/** Agent Memory: Delete Memory → search text → pick → confirm (the modal's Delete). */
async function deleteMemory(page, text) {
  await runCommand(page, 'Agent Memory: Delete Memory');
  await answerInputBox(page, text);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: text }).first();
  await row.waitFor({ state: 'visible', timeout: 15000 });
  await row.click();
  const confirm = page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Delete' }).first();
  await confirm.waitFor({ state: 'visible', timeout: 10000 });
  await confirm.click();
  await waitForNotification(page, 'Memory deleted');
}

async function openGraph(page) {
  await runCommand(page, 'Agent Memory: Open Memory Graph');
  return findFrame(page, async (f) => (await f.locator('#canvas').count()) > 0 && (await f.locator('#minMentions').count()) > 0, {
    timeoutMs: 30000,
  });
}

/** Names of the nodes cytoscape holds (the canvas has no DOM per node). */
const nodeLabels = (frame) => frame.evaluate(() => window.agentMemoryGraph?.cy.nodes().map((n) => String(n.data('label'))) ?? []);

/** Clicks a node on the canvas at its rendered position. */
async function clickNode(frame, label) {
  const pos = await frame.evaluate((l) => {
    const { cy } = window.agentMemoryGraph;
    const n = cy.nodes().filter((x) => x.data('label') === l)[0];
    cy.center(n);
    return n.renderedPosition();
  }, label);
  await frame.locator('#canvas').click({ position: { x: pos.x, y: pos.y } });
}

export const tests = {
  async 'knowledge graph: entities drawn, click an entity to see its memories, open one; HTML in names stays inert'({
    page,
    screenshot,
    workspace,
  }) {
    const ollama = await fakeOllama();
    const agentYaml = join(workspace, 'agent.yaml');
    try {
      writeFileSync(
        agentYaml,
        `memory:\n  pipelineV2:\n    enabled: true\n    graphEnabled: true\n    ollamaUrl: ${ollama.url}\n    workerPollMs: 200\n`,
      );
      // The extension reloads its configuration when agent.yaml appears: give it a moment.
      await page.waitForTimeout(3000);
      await addMemory(page, 'The billing service publishes invoices to Kafka; the Kafka topics are owned by the platform team.');
      await addMemory(page, 'The checkout flow calls the billing service synchronously before confirming an order.');

      const graph = await openGraph(page);
      // The pipeline extracts in the background: refresh until its entities are there.
      const want = ['Billing Service', 'Kafka', 'Platform Team', 'Checkout Flow', XSS_ENTITY];
      for (let i = 0; i < 60; i++) {
        const labels = await nodeLabels(graph);
        if (want.every((w) => labels.includes(w))) break;
        await page.waitForTimeout(1000);
        await graph.locator('#refresh').click();
      }
      assert.deepEqual((await nodeLabels(graph)).sort(), [...want].sort(), `Ollama calls: ${ollama.calls.join(' ')}`);
      await graph.locator('#status', { hasText: /Drawn in/ }).waitFor({ timeout: 10000 });
      assert.match(await graph.locator('#status').innerText(), /^5 of 5 entities, 4 relations\./);
      assert.equal(await graph.locator('#notice').isHidden(), true, 'no fallback notice: the entity view is shown');
      // The type filter lists the graph's types (the graph writer types new entities 'unknown').
      assert.deepEqual(await graph.locator('#types input').evaluateAll((xs) => xs.map((x) => x.value)), ['unknown']);
      assert.deepEqual(await graph.locator('#types .count').allInnerTexts(), ['(5)']);
      await screenshot('entities');

      await clickNode(graph, 'Kafka');
      await graph.locator('#sideTitle', { hasText: 'Kafka' }).waitFor({ timeout: 15000 });
      const item = graph.locator('#sideList li', { hasText: 'publishes invoices to Kafka' });
      await item.waitFor({ timeout: 15000 });
      assert.equal(await graph.locator('#sideList li').count(), 1, 'one memory mentions Kafka');
      assert.match(await graph.locator('#sideMeta').innerText(), /mentioned by 1 memory/);
      await screenshot('entity-memories');

      await clickNode(graph, 'Billing Service');
      await graph.locator('#sideTitle', { hasText: 'Billing Service' }).waitFor({ timeout: 15000 });
      await graph.locator('#sideList li', { hasText: 'checkout flow' }).waitFor({ timeout: 15000 });
      assert.equal(await graph.locator('#sideList li').count(), 2, 'both memories mention the billing service');

      // Filters: the name search narrows the drawn entities (server side, graph.query search).
      await graph.locator('#gsearch').fill('kaf');
      await graph.waitForFunction(() => window.agentMemoryGraph?.cy.nodes().length === 1, null, { timeout: 15000 });
      assert.deepEqual(await nodeLabels(graph), ['Kafka']);
      await graph.locator('#all').click();
      await graph.waitForFunction(() => window.agentMemoryGraph?.cy.nodes().length === 5, null, { timeout: 15000 });

      // HTML in an entity name: painted as text on the canvas, textContent in the side panel.
      await clickNode(graph, XSS_ENTITY);
      const title = graph.locator('#sideTitle', { hasText: 'inert-entity' });
      await title.waitFor({ timeout: 15000 });
      assert.equal(await title.textContent(), XSS_ENTITY, 'the name is shown as the literal text');
      assert.equal(
        await graph.evaluate(() => document.querySelectorAll('body img, body b, #side script, #canvas script').length),
        0,
        'no element was created from the name',
      );
      assert.equal(await graph.evaluate(() => window.__pwned), undefined, 'no script ran');
      await screenshot('xss-entity');

      // A memory of the side panel opens as a document.
      await clickNode(graph, 'Kafka');
      await item.waitFor({ timeout: 15000 });
      await item.click();
      await page.locator('.tab', { hasText: /\.md/ }).first().waitFor({ state: 'visible', timeout: 15000 });
      await screenshot('memory-opened');

      // Later UI tests search this workspace's store and count results: leave no memory behind.
      rmSync(agentYaml, { force: true });
      for (const text of ['billing service publishes invoices', 'checkout flow calls the billing service']) await deleteMemory(page, text);
    } finally {
      // Later UI tests run on the same workspace: the pipeline goes off again.
      rmSync(agentYaml, { force: true });
      await ollama.close();
    }
  },

  async 'graph panel at 3,000 entities / 6,000 relations: time to first draw (measured, printed)'({ page, screenshot }) {
    const graph = await openGraph(page);
    await graph.locator('#status', { hasText: /Drawn in|No memories|No entity/ }).waitFor({ timeout: 30000 });
    // The panel's own message path (window 'message' → render), fed a synthetic graph: this
    // measures the webview (cytoscape create + layout + first render), not the engine.
    const result = await graph.evaluate(
      () =>
        new Promise((resolve) => {
          let seed = 42;
          const rnd = () => (seed = (seed * 1664525 + 1013904223) % 4294967296) / 4294967296;
          const types = ['service', 'library', 'person', 'file', 'concept'];
          const nodes = Array.from({ length: 3000 }, (_, i) => ({
            id: `n${i}`,
            name: `Entity ${i}`,
            type: types[i % 5],
            mentions: 1 + Math.floor(rnd() * rnd() * 40),
          }));
          const edges = [];
          for (let j = 0; edges.length < 6000; j++) {
            const a = Math.floor(rnd() * 3000),
              b = Math.floor(rnd() * rnd() * 3000);
            if (a !== b) edges.push({ id: `r${j}`, from: `n${a}`, to: `n${b}`, type: 'uses', confidence: 0.8, mentions: 1 });
          }
          const data = {
            mode: 'entities',
            nodes,
            edges,
            truncated: false,
            types: types.map((type) => ({ type, count: 600 })),
            totalEntities: 3000,
          };
          const status = document.getElementById('status');
          const t0 = performance.now();
          const obs = new MutationObserver(() => {
            if (/^3000 of 3000 entities.*Drawn in/.test(status.textContent)) {
              obs.disconnect();
              resolve({
                wallMs: Math.round(performance.now() - t0),
                drawMs: window.agentMemoryGraph.lastDrawMs(),
                timings: window.agentMemoryGraph.timings,
                nodes: window.agentMemoryGraph.cy.nodes().length,
                edges: window.agentMemoryGraph.cy.edges().length,
                status: status.textContent,
              });
            }
          });
          obs.observe(status, { childList: true, characterData: true, subtree: true });
          window.dispatchEvent(new MessageEvent('message', { data: { type: 'graph', data } }));
        }),
    );
    console.log(
      `      measurement: 3,000 entities / 6,000 relations drawn in ${result.drawMs} ms (create ${result.timings.create} ms, layout ${result.timings.layout} ms, first render ${result.timings.render} ms)`,
    );
    assert.equal(result.nodes, 3000);
    assert.equal(result.edges, 6000);
    await screenshot('3000-nodes');
    // Zoom in (wheel over the canvas): labels appear once readable.
    const box = await graph.locator('#canvas').boundingBox();
    await graph.locator('#canvas').hover({ position: { x: box.width / 2, y: box.height / 2 } });
    const before = await graph.evaluate(() => window.agentMemoryGraph.cy.zoom());
    for (let i = 0; i < 30; i++) await page.mouse.wheel(0, -100);
    await page.waitForTimeout(800);
    const after = await graph.evaluate(() => window.agentMemoryGraph.cy.zoom());
    assert.ok(after > before * 2, `the wheel zoomed in (zoom ${before} → ${after})`);
    await screenshot('3000-nodes-zoomed');
  },
};

/* The HTML report in a real headless Chromium: it loads with no console
 * error and no network request, shows the top path, a click on a frame shows
 * the nodes along it with the numbers of the JSON export, frames are as
 * wide as their inclusive time, search and
 * thresholds filter the path table, and hostile names render as text. The
 * diff page (mkprof diff-a/diff-b, numbers known exactly) colours frames by
 * diff's verdicts of their nodes and shows A, B and the change per node.
 * Screenshots are kept in OUTDIR.
 * usage: node html_test.js PLAYWRIGHT_DIR DEMO.html DEMO.json HOSTILE.html DIFF.html DIFF.json OUTDIR WIDE10K.html */
'use strict';
const path = require('path');
const fs = require('fs');

const [pwDir, demoHtml, demoJson, hostileHtml, diffHtml, diffJson, outDir, wideHtml, hugeHtml,
	hugeDiffHtml, offcpuHtml, noexitHtml] = process.argv.slice(2);
const { chromium } = require(path.join(pwDir, 'node_modules', 'playwright-core'));

let failures = 0;
function fail(msg) {
	console.log('FAIL: ' + msg);
	failures++;
}
function eq(what, got, want) {
	if (JSON.stringify(got) !== JSON.stringify(want))
		fail(what + ': got ' + JSON.stringify(got) + ', expected ' + JSON.stringify(want));
}

/* As the text report's "%.0f": half to even. */
function roundEven(x) {
	const r = Math.round(x);
	return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/* A page with every console error, page error, dialog and request other
 * than the page itself recorded (requests are aborted, never sent). */
async function open(browser, file) {
	const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
	const page = await context.newPage();
	const url = 'file://' + path.resolve(file);
	const seen = { errors: [], requests: [], dialogs: [] };
	page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') seen.errors.push(m.text()); });
	page.on('pageerror', (e) => seen.errors.push(String(e)));
	page.on('dialog', (d) => { seen.dialogs.push(d.message()); d.dismiss(); });
	page.on('request', (r) => { if (r.url() !== url) seen.requests.push(r.url()); });
	await context.route('**/*', (route) => {
		if (route.request().url() === url)
			route.continue();
		else
			route.abort();
	});
	await page.goto(url, { waitUntil: 'load' });
	await page.waitForSelector('#flame .frame');
	return { page, seen, context };
}

function checkClean(name, seen) {
	eq(name + ': console errors', seen.errors, []);
	eq(name + ': network requests', seen.requests, []);
	eq(name + ': dialogs', seen.dialogs, []);
}

async function tableRows(page, sel) {
	return page.$$eval(sel + ' tbody tr', (trs) =>
		trs.filter((tr) => tr.offsetParent !== null)
			.map((tr) => Array.from(tr.cells, (c) => c.textContent)));
}

async function demo(browser) {
	const data = JSON.parse(fs.readFileSync(demoJson, 'utf8'));
	const rate = data.ticks_per_ns;
	const { page, seen, context } = await open(browser, demoHtml);
	await page.screenshot({ path: path.join(outDir, 'demo.png'), fullPage: true });

	/* The top path by time (the default weight of a timed profile): the
	 * path whose leaf node has the most self time. */
	const top = data.paths.reduce((a, p) => (p.self_ns || 0) > (a.self_ns || 0) ? p : a);
	eq('top path', await page.textContent('#top-path-names'), top.path.join(' > '));
	eq('path rows', (await tableRows(page, '#paths-table')).length, data.paths.length);
	/* the header shows the run and the gated time (#29): the gated time is
	 * the JSON's, formatted as the page formats times */
	const summary = await page.$$eval('#summary dt', (d) => d.map((e) => e.textContent));
	eq('summary has run and gated time', ['run', 'gated time'].every((k) => summary.includes(k)), true);

	/* The node of a name prefix, from the JSON export. */
	const nodeOf = (names) => data.nodes.find((n) => n.path.join('\u0000') === names.join('\u0000'));
	const nodeRow = (names) => {
		const n = nodeOf(names);
		return [names[names.length - 1], String(n.calls)].concat(
			[n.incl.mean_ns, n.incl.p50_ns, n.incl.p90_ns, n.incl.p99_ns, n.incl.max_ns, n.self_ns]
				.map((v) => String(roundEven(v))));
	};

	/* A leaf frame: its table is the node of each prefix of its path, as
	 * the JSON export gives them. */
	const getc = data.paths.find((p) => p.path[p.path.length - 1] === 'getc');
	await page.click('#flame .frame >> text="getc"');
	await page.waitForSelector('#details:not([hidden])');
	eq('details title', await page.textContent('#details-title'), 'getc');
	eq('details path', await page.textContent('#details-path'), getc.path.join(' > '));
	const want = getc.path.map((_, d) => nodeRow(getc.path.slice(0, d + 1)));
	eq('getc node table', await tableRows(page, '#seg-table'), want);
	await page.screenshot({ path: path.join(outDir, 'demo-getc.png'), fullPage: true });

	/* An inner frame: its own node, whatever paths pass through it. */
	const work = nodeOf(['main', 'work']);
	await page.click('#flame .frame >> text="work"');
	const rows = await tableRows(page, '#seg-table');
	eq('work table rows', rows.map((r) => r[0]), ['main', 'work']);
	eq('work table', rows[1], nodeRow(['main', 'work']));
	eq('work calls', rows[1][1], String(work.incl.count));
	eq('work mean', rows[1][2], String(roundEven(work.incl.sum_ticks / rate / work.incl.count)));
	const bars = await page.$$eval('#hist .bar:not(.empty)', (b) => b.length);
	eq('work histogram bars', bars, work.incl.bins.length);
	/* the y axis: the tallest bucket's count at the top, half of it midway */
	const topBin = Math.max.apply(null, work.incl.bins.map((b) => b[1])); // [bucket, count]
	eq('histogram y axis', [await page.textContent('#hist-ytop'), await page.textContent('#hist-ymid')],
		[topBin + ' calls', (Math.round(topBin / 2 * 10) / 10) + ' calls']);

	/* The click on work zoomed into it: work spans the graph, main above
	 * it too; a click on the top frame zooms back out. */
	eq('zoomed into work', await page.textContent('#zoom-status'),
		'zoomed into work (click a frame above it to zoom out)');
	await page.click('#flame .frame.root');
	eq('zoomed out', await page.textContent('#zoom-status'), '');

	/* Widths: a frame is as wide as its node's inclusive time, so a child
	 * is never wider than its parent. */
	const widths = await page.$$eval('#flame .frame', (f) => f.map((e) =>
		[e.id, e.getBoundingClientRect().width]));
	const w = new Map(widths);
	const mainW = w.get('p' + nodeOf(['main']).id), workW = w.get('p' + work.id);
	if (!(workW <= mainW + 0.5))
		fail('work frame (' + workW + ' px) wider than main (' + mainW + ' px)');
	const wantRatio = work.incl.sum_ticks / nodeOf(['main']).incl.sum_ticks;
	if (Math.abs(workW / mainW - wantRatio) > 0.01)
		fail('work/main width ratio ' + (workW / mainW) + ', expected ' + wantRatio);

	/* Search keeps the paths with a matching name and marks the frames. */
	await page.fill('#search', 'COMPUTE');
	const hits = data.paths.filter((p) => p.path.some((n) => n.includes('compute')));
	eq('search rows', (await tableRows(page, '#paths-table')).length, hits.length);
	eq('search frames', await page.$$eval('#flame .frame.match', (f) => f.map((e) => e.textContent)),
		['compute', 'compute']);
	await page.screenshot({ path: path.join(outDir, 'demo-search.png'), fullPage: true });
	await page.fill('#search', '');

	/* Thresholds drop paths from the tree and the table. */
	await page.fill('#min-count', '100');
	const big = data.paths.filter((p) => p.count >= 100);
	eq('min-count rows', (await tableRows(page, '#paths-table')).length, big.length);
	eq('min-count frames gone', await page.$$eval('#flame .frame', (f) =>
		f.some((e) => e.textContent === 'io' || e.textContent === 'idle')), false);
	await page.fill('#min-count', '0');
	await page.fill('#min-time', String(Math.ceil(top.self_ns)));
	eq('min-time rows', (await tableRows(page, '#paths-table')).length, 1);
	await page.fill('#min-time', '0');

	/* Sorting by count, then weight by count. */
	await page.click('#paths-table th[data-key=count]');
	const counts = (await tableRows(page, '#paths-table')).map((r) => Number(r[1]));
	eq('sorted by count', counts, counts.slice().sort((a, b) => b - a));
	await page.selectOption('#weight', 'count');
	const byCount = data.paths.reduce((a, p) => p.count > a.count ? p : a);
	eq('top path by count', await page.textContent('#top-path-names'), byCount.path.join(' > '));

	checkClean('demo', seen);
	await context.close();
}

async function hostile(browser) {
	const { page, seen, context } = await open(browser, hostileHtml);
	/* by count every path's frames are wide enough to be drawn */
	await page.selectOption('#weight', 'count');
	const names = ['<script>alert(1)</script>', '</script><img src=x onerror=alert(2)>', '&amp;<!--'];
	const frames = await page.$$eval('#flame .frame', (f) => f.map((e) => e.textContent));
	names.forEach((n) => { if (!frames.includes(n)) fail('hostile frame missing: ' + n); });
	eq('no injected elements', await page.evaluate(() =>
		document.querySelectorAll('img, b, #flame script, table script').length), 0);
	eq('title as text', await page.title(), 'pathprof: <b>cmd</b> "</script>"');
	await page.click('#flame .frame >> text="</script><img src=x onerror=alert(2)>"');
	const rows = await tableRows(page, '#seg-table');
	eq('hostile segment names', rows.map((r) => r[0]), ['main', names[0], names[1]]);
	await page.screenshot({ path: path.join(outDir, 'hostile.png'), fullPage: true });
	checkClean('hostile', seen);
	await context.close();
}

/* Frames of one row never overlap: each starts where the previous ends or
 * later (half a pixel for rounding). */
async function checkNoOverlap(page, what) {
	const boxes = await page.$$eval('#flame .frame', (f) => f.map((e) => {
		const r = e.getBoundingClientRect();
		return [Math.round(r.top), r.left, r.right];
	}));
	const rows = new Map();
	boxes.forEach((b) => { if (!rows.has(b[0])) rows.set(b[0], []); rows.get(b[0]).push(b); });
	let overlaps = 0;
	rows.forEach((r) => {
		r.sort((a, b) => a[1] - b[1]);
		for (let i = 1; i < r.length; i++)
			if (r[i][1] < r[i - 1][2] - 0.5)
				overlaps++;
	});
	eq(what + ': overlapping frames', overlaps, 0);
	return boxes.length;
}

/* 10 000 paths (main > fNN > gNN): the narrow frames of each parent are one
 * '...' frame, no two frames overlap, and a click zooms into a subtree,
 * where its children get room; the top frame zooms back out. */
async function wide(browser) {
	const t0 = Date.now();
	const { page, seen, context } = await open(browser, wideHtml);
	const loadMs = Date.now() - t0;
	console.log('wide10k: 10000 paths, page ' + fs.statSync(wideHtml).size + ' bytes, loaded in ' +
		loadMs + ' ms');
	const drawn = await checkNoOverlap(page, 'wide10k');
	const more = await page.$$eval('#flame .frame.more', (f) => f.length);
	eq('wide10k: one ... frame per f', more, 100);
	eq('wide10k: frames merged', await page.$eval('#flame', (f) => f.dataset.merged), '10000');
	eq('wide10k: frames drawn', drawn, 1 + 1 + 100 + 100);
	await page.screenshot({ path: path.join(outDir, 'wide10k.png') });
	/* the heaviest f is drawn first, left, after main */
	const fName = await page.textContent('#flame .frame:not(.root):not(.more) >> nth=1');
	await page.click('#flame .frame >> text="' + fName + '"');
	eq('wide10k: zoom status', await page.textContent('#zoom-status'),
		'zoomed into ' + fName + ' (click a frame above it to zoom out)');
	const flameW = await page.$eval('#flame', (e) => e.clientWidth);
	const zw = await page.$eval('#flame .frame >> text="' + fName + '"', (e) => e.getBoundingClientRect().width);
	if (Math.abs(zw - flameW) > 2)
		fail('wide10k: zoomed frame ' + zw + ' px wide, the graph ' + flameW);
	const gs = await page.$$eval('#flame .frame', (fr) => fr.filter((e) => /^g\d\d$/.test(e.textContent)).length);
	if (!(gs > 50))
		fail('wide10k: only ' + gs + ' g frames drawn after zooming into ' + fName);
	await checkNoOverlap(page, 'wide10k zoomed');
	await page.screenshot({ path: path.join(outDir, 'wide10k-zoomed.png') });
	await page.click('#flame .frame.root');
	eq('wide10k: zoomed out', await page.textContent('#zoom-status'), '');
	eq('wide10k: ... frames again', await page.$$eval('#flame .frame.more', (fr) => fr.length), 100);
	checkClean('wide10k', seen);
	await context.close();
}

/* 100 000 paths: the page carries the 10 000 heaviest and "(other)" paths
 * holding the rest's leaf returns (every leaf return still counted), says
 * so, stays small and loads. */
async function huge(browser) {
	const size = fs.statSync(hugeHtml).size;
	const t0 = Date.now();
	const { page, seen, context } = await open(browser, hugeHtml);
	const loadMs = Date.now() - t0;
	console.log('wide100k: 100000 paths, page ' + size + ' bytes, loaded in ' + loadMs + ' ms');
	if (size > 8e6)
		fail('wide100k: page of ' + size + ' bytes');
	eq('wide100k: note', await page.textContent('#budget-note'),
		'This page carries the 10000 heaviest of 100000 paths; the leaf returns of the other 90000 ' +
		'are summed in "(other)" frames under their parents (their time is not drawn). ' +
		'pathprof report --format json has every path.');
	const data = await page.evaluate(() => JSON.parse(document.getElementById('pp-data').textContent));
	const others = data.paths.filter((p) => p.path[p.path.length - 1] === '(other)');
	eq('wide100k: kept paths', data.paths.length - others.length, 10000);
	eq('wide100k: leaf returns kept', data.paths.reduce((a, p) => a + p.count, 0), data.total_count);
	await checkNoOverlap(page, 'wide100k');
	checkClean('wide100k', seen);
	await context.close();
}

/* A diff of two 100 000-path profiles (every count changed): the page lists
 * the 10 000 paths of largest impact, each side carries those first and
 * sums the rest's leaf returns in "(other)" paths, says so, and loads. */
async function hugeDiff(browser) {
	const size = fs.statSync(hugeDiffHtml).size;
	const t0 = Date.now();
	const { page, seen, context } = await open(browser, hugeDiffHtml);
	const loadMs = Date.now() - t0;
	console.log('diff of wide100k: 100000 paths a side, page ' + size + ' bytes, loaded in ' +
		loadMs + ' ms');
	if (size > 20e6)
		fail('diff of wide100k: page of ' + size + ' bytes');
	eq('diff of wide100k: note', await page.textContent('#budget-note'),
		'This page lists the 10000 paths of largest impact of the 100000 compared; the graphs ' +
		'draw those and each side\'s heaviest, and sum the leaf returns of the others in ' +
		'"(other)" frames under their parents (their time is not drawn). pathprof diff ' +
		'--format json has every path.');
	const block = (id) => page.evaluate((i) => JSON.parse(document.getElementById(i).textContent), id);
	const diff = await block('pp-diff');
	eq('diff of wide100k: listed', diff.paths.length, 10000);
	for (const id of ['pp-data', 'pp-data-a']) {
		const data = await block(id);
		const others = data.paths.filter((p) => p.path[p.path.length - 1] === '(other)');
		const kept = new Set(data.paths.map((p) => p.id));
		eq('diff of wide100k: ' + id + ' kept paths', data.paths.length - others.length, 10000);
		eq('diff of wide100k: ' + id + ' leaf returns kept',
			data.paths.reduce((a, p) => a + p.count, 0), data.total_count);
		eq('diff of wide100k: ' + id + ' carries every listed path',
			diff.paths.filter((p) => !kept.has(p.id)).length, 0);
	}
	await checkNoOverlap(page, 'diff of wide100k');
	checkClean('diff of wide100k', seen);
	await context.close();
}

/* Off-CPU data (mkprof offcpu): the edges table, and a click shows the
 * blocked and waker paths, the reason, the kernel stack, and selects the
 * blocked node, whose details then carry its off-CPU time. */
async function offcpuPage(browser) {
	const { page, seen, context } = await open(browser, offcpuHtml);
	eq('offcpu: section shown', await page.isVisible('#offcpu-section'), true);
	const rows = await page.$$eval('#offcpu-table tbody tr', (trs) =>
		trs.map((tr) => Array.from(tr.children).map((td) => td.textContent)));
	eq('offcpu: rows', JSON.stringify(rows), JSON.stringify([
		['10.00 ms', '2', '5.00 ms', '5.00 ms', 'sleep', 'main > parse > lex',
			'(the kernel: interrupt, timer, kernel thread)'],
		['6.00 ms', '3', '2.00 ms', '2.95 ms', 'futex', 'main > parse > lex', 'main > work > compute'],
	]));
	await page.click('#off1');
	eq('offcpu: detail title', await page.textContent('#offcpu-detail-title'), 'futex: 6.00 ms in 3 blocks');
	eq('offcpu: kernel stack', JSON.stringify(await page.$$eval('#offcpu-stack li', (l) => l.map((x) => x.textContent))),
		JSON.stringify(['__schedule', 'schedule', 'futex_wait_queue', 'futex_wait', 'do_futex']));
	const stats = await page.textContent('#offcpu-detail-stats');
	if (!stats.includes('blocked onmain > parse > lex') || !stats.includes('woken bymain > work > compute'))
		fail('offcpu: detail stats ' + stats);
	eq('offcpu: blocked node selected', await page.$eval('#p92f0c1f4b7ef00e7', (f) => f.classList.contains('selected')), true);
	const det = await page.textContent('#details-stats');
	if (!det.includes('off-CPU16.00 ms (sleep 10.00 ms, futex 6.00 ms)') ||
		!det.includes('blocked (futex)6.00 ms in 3 blocks, woken by main > work > compute') ||
		!det.includes('blocked (sleep)10.00 ms in 2 blocks, woken by (the kernel: interrupt, timer, kernel thread)'))
		fail('offcpu: node details ' + det);
	checkClean('offcpu', seen);
	await context.close();
}

/* A thread whose root never returned (mkprof noexit): its frame is as
 * wide as poll below it, 96.15 % of the gated time, and the graph's total
 * is the gated time, 5.20 us (#29). */
async function noexitPage(browser) {
	const { page, seen, context } = await open(browser, noexitHtml);
	const titles = await page.$$eval('#flame .frame', (f) => f.map((e) => e.title));
	const of = (name) => titles.find((t) => t.split('\n')[0] === name);
	eq('noexit: all', of('all'), 'all\n5.20 us (100.00%)');
	eq('noexit: thread_main', of('thread_main'), 'thread_main\n5.00 us (96.15%)');
	eq('noexit: poll', of('poll'), 'poll\n5.00 us (96.15%)');
	checkClean('noexit', seen);
	await context.close();
}

/* Frame of a path's leaf: its id is the path's own. */
function leafFrame(d) { return '#p' + d.id; }

async function frameInfo(page, sel) {
	return page.$eval(sel, (f) => {
		const m = getComputedStyle(f).backgroundColor.match(/\d+/g).map(Number);
		return { verdict: f.dataset.verdict, text: f.textContent, rgb: m.slice(0, 3),
			mark: getComputedStyle(f, '::before').content };
	});
}

async function diffPage(browser) {
	const d = JSON.parse(fs.readFileSync(diffJson, 'utf8'));
	/* diff's rows are nodes and paths; the page's table lists the paths */
	const pathIds = new Set(['diff-a.json', 'diff-b.json'].flatMap((f) => JSON.parse(
		fs.readFileSync(path.join(path.dirname(diffJson), f), 'utf8')).paths.map((p) => p.id)));
	const byLeaf = (n) => d.paths.find((p) => p.names[p.names.length - 1] === n && pathIds.has(p.id));
	const byNames = (ns) => d.paths.find((p) => p.names.join('>') === ns.join('>'));
	const { page, seen, context } = await open(browser, diffHtml);
	await page.screenshot({ path: path.join(outDir, 'diff.png'), fullPage: true });

	eq('heading', await page.textContent('h1'), 'pathprof diff');
	const legend = await page.textContent('#legend');
	if (!legend.startsWith('Change = B \u2212 A'))
		fail('legend: ' + JSON.stringify(legend));
	eq('legend keys', await page.$$eval('#legend .legend-item', (l) => l.map((e) => e.textContent)),
		['slower in B', 'faster in B', 'no clear change', 'untimed (counts only)', 'only in B', 'only in A']);
	eq('largest change', await page.textContent('#top-path-names'), 'main > work > compute');

	/* The page's verdicts are diff's: the table in diff's order, every
	 * leaf frame coloured by its path's verdict. */
	const want = d.paths.filter((p) => pathIds.has(p.id)).map((p) =>
		[p.in === 'both' ? p.verdict : 'only in ' + p.in.toUpperCase(), p.names.join('>')]);
	eq('diff verdicts', (await tableRows(page, '#paths-table')).map((r) => [r[1], r[10]]), want);
	eq('known verdicts', ['compute', 'io', 'lex', 'poll', 'old_cache', '<b>x</b>'].map((n) =>
		[byLeaf(n).in, byLeaf(n).verdict]), [['both', 'slower'], ['both', 'faster'],
		['both', 'no clear change'], ['both', 'untimed'], ['a', '-'], ['b', '-']]);

	/* compute: 1000 -> 2000 ns per event in B; red. io: 4000 -> 2000; blue. */
	const compute = await frameInfo(page, leafFrame(byLeaf('compute')));
	eq('compute verdict', compute.verdict, 'slower');
	if (!(compute.rgb[0] > 200 && compute.rgb[1] < 140 && compute.rgb[2] < 140))
		fail('compute is not red: rgb ' + compute.rgb);
	const io = await frameInfo(page, leafFrame(byLeaf('io')));
	eq('io verdict', io.verdict, 'faster');
	if (!(io.rgb[2] > 200 && io.rgb[0] < 140))
		fail('io is not blue: rgb ' + io.rgb);
	const lex = await frameInfo(page, leafFrame(byLeaf('lex')));
	eq('lex verdict', lex.verdict, 'same');
	if (Math.max.apply(null, lex.rgb) - Math.min.apply(null, lex.rgb) > 40)
		fail('lex is not neutral: rgb ' + lex.rgb);
	/* An inner frame takes its own node's verdict. */
	const workRow = byNames(['main', 'work']);
	/* its colour is the verdict's kind: 'slower (callees)' is slower */
	eq('work takes its node\'s verdict', (await frameInfo(page, '#p' + workRow.id)).verdict,
		workRow.verdict === 'no clear change' ? 'same' : workRow.verdict.split(' ')[0]);

	/* Paths on one side only are marked, their names still text. */
	const onlyB = await frameInfo(page, leafFrame(byLeaf('<b>x</b>')));
	eq('only-in-B frame', [onlyB.verdict, onlyB.text, onlyB.mark], ['only-b', '<b>x</b>', '"+ "']);
	const onlyA = await frameInfo(page, leafFrame(byLeaf('old_cache')));
	eq('only-in-A frame', [onlyA.verdict, onlyA.text, onlyA.mark], ['only-a', 'old_cache', '"\u2212 "']);
	eq('no injected elements', await page.evaluate(() =>
		document.querySelectorAll('#flame b, table b').length), 0);

	/* A click on compute: A, B and change per node along it, exactly as
	 * diff's own rows of those nodes say. */
	await page.click(leafFrame(byLeaf('compute')));
	await page.waitForSelector('#details:not([hidden])');
	eq('compute path', await page.textContent('#details-path'), 'main > work > compute');
	const rows = await tableRows(page, '#seg-table');
	const chain = [['main'], ['main', 'work'], ['main', 'work', 'compute']].map(byNames);
	eq('compute node names', rows.map((r) => r[0]), ['main', 'work', 'compute']);
	eq('compute node calls', rows.map((r) => [r[1], r[2]]),
		chain.map((c) => [String(c.calls_a), String(c.calls_b)]));
	eq('compute node means', rows.map((r) => [r[3], r[4]]),
		chain.map((c) => [String(roundEven(c.mean_ns_a)), String(roundEven(c.mean_ns_b))]));
	eq('compute mean change', rows[2].slice(3, 7), ['1000', '2000', '+1000', '+100.00']);
	/* ... and the p50/p99 columns are diff's JSON, unchanged. */
	const js = byLeaf('compute').segments;
	eq('compute p50/p99 as diff', rows.map((r) => [r[7], r[8], r[9], r[11], r[12], r[13]]),
		js.map((g) => [g.p50_ns_a, g.p50_ns_b, g.p50_change_ns, g.p99_ns_a, g.p99_ns_b, g.p99_change_ns]
			.map((v, i) => (i % 3 === 2 && v >= 0 ? '+' : '') + String(v))));
	const stats = await page.$$eval('#details-stats div', (ds) => ds.map((e) =>
		[e.children[0].textContent, e.children[1].textContent]));
	const c = byLeaf('compute');
	eq('compute stats', stats.slice(0, 6), [['verdict', 'slower'], ['leaf returns A', '500'],
		['leaf returns B', '500'], ['path mean A', '1000.0 ns'], ['path mean B', '2000.0 ns'],
		['path change', '+1000.0 ns (+100.00%)']]);
	eq('compute stats as diff', [c.mean_ns_a, c.mean_ns_b, c.change_ns, c.change_pct],
		[1000, 2000, 1000, 100]);
	eq('histogram pairs', await page.$$eval('#hist .pair', (p) => p.length) > 0, true);
	await page.screenshot({ path: path.join(outDir, 'diff-compute.png'), fullPage: true });

	/* The path only in B: B's numbers, A's columns empty. */
	await page.click(leafFrame(byLeaf('<b>x</b>')));
	const newChain = [['main'], ['main', 'new_cache'], ['main', 'new_cache', '<b>x</b>']].map(byNames);
	eq('only-in-B nodes', (await tableRows(page, '#seg-table')).map((r) => r.slice(0, 5)), [
		['main', String(newChain[0].calls_a), String(newChain[0].calls_b),
			String(roundEven(newChain[0].mean_ns_a)), String(roundEven(newChain[0].mean_ns_b))],
		['new_cache', '-', '30', '-', String(roundEven(newChain[1].mean_ns_b))],
		['<b>x</b>', '-', '30', '-', '300'],
	]);
	checkClean('diff', seen);
	await context.close();
}

(async () => {
	let browser;
	try {
		browser = await chromium.launch({
			executablePath: '/usr/bin/chromium',
			args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
				'--disable-component-update', '--disable-sync', '--no-first-run'],
		});
	} catch (e) {
		console.log('FAIL: cannot launch /usr/bin/chromium: ' + e.message);
		process.exit(1);
	}
	try {
		await demo(browser);
		await hostile(browser);
		await diffPage(browser);
		await wide(browser);
		await huge(browser);
		await hugeDiff(browser);
		await offcpuPage(browser);
		await noexitPage(browser);
	} catch (e) {
		fail(e.stack || String(e));
	}
	await browser.close();
	console.log(failures ? failures + ' failure(s)' : 'html: all checks passed; screenshots in ' + outDir);
	process.exit(failures ? 1 : 0);
})();

/* The HTML report's diff mode: B's tree coloured by diff's own verdicts
 * against A, diff's columns in the paths table, A/B/change per node along the path.
 * embed.py splices this file into report.js at its PP:DIFF_JS marker, inside
 * that closure, so it shares the report's state and helpers (one script). */

/* One entry per path diff lists, in diff's order (impact). Widths are
 * per run: B's numbers, or A's for a path only in A. */
function diffPaths() {
	function index(list) {
		const m = new Map();
		list.forEach(function (p, i) { m.set(p.id, i); });
		return m;
	}
	const inA = index(dataA.paths), inB = index(data.paths);
	const runsA = diff.a.runs.length, runsB = diff.b.runs.length;
	/* diff's rows are nodes and paths; the tree is built from the paths */
	return diff.paths.filter(function (d) {
		return inA.has(d.id) || inB.has(d.id);
	}).map(function (d, i) {
		const ia = inA.get(d.id), ib = inB.get(d.id);
		const a = ia === undefined ? null : dataA.paths[ia];
		const b = ib === undefined ? null : data.paths[ib];
		const own = b || a, runs = b ? runsB : runsA;
		return {
			index: i,
			id: d.id,
			count: own.count / runs,
			time: own.self_ns === null ? 0 : own.self_ns / runs,
			timed: own.self_ns !== null,
			names: own.path,
			nodeIds: b ? prefixIds[ib] : idsA[ia],
			nodes: b ? nodesB : nodesA,
			rate: b ? data.ticks_per_ns : dataA.ticks_per_ns,
			runs: runs,
			diff: d,
			a: a,
			b: b,
			kind: kindOf(d),
		};
	});
}

/* The legend's order, which is also the order of a mixed frame's bands. */
const DIFF_KINDS = ['slower', 'faster', 'same', 'untimed', 'only-b', 'only-a'];
const KIND_TEXT = {
	'slower': 'slower in B', 'faster': 'faster in B', 'same': 'no clear change',
	'untimed': 'untimed (counts only)', 'only-b': 'only in B', 'only-a': 'only in A',
};

function kindOf(d) {
	if (d.in !== 'both')
		return d.in === 'a' ? 'only-a' : 'only-b';
	const v = d.verdict.split(' ')[0]; /* 'slower (median)' is slower */
	return v === 'slower' || v === 'faster' || v === 'untimed' ? v : 'same';
}

/* Red and blue deepen with the size of the change, up to +-100 %. */
function kindColour(kind, changePct) {
	const k = Math.min(Math.abs(changePct) || 0, 100) / 100;
	switch (kind) {
	case 'slower': return 'hsl(0, 80%, ' + (80 - 28 * k).toFixed(1) + '%)';
	case 'faster': return 'hsl(212, 80%, ' + (80 - 28 * k).toFixed(1) + '%)';
	case 'only-b': return 'hsl(135, 45%, 62%)';
	case 'only-a': return 'hsl(240, 5%, 80%)';
	case 'untimed': return 'hsl(240, 6%, 93%)';
	default: return 'hsl(45, 12%, 84%)';
	}
}

/* A frame's paths by kind: their weight and weighted mean change. */
function kindsOf(node) {
	const useCount = !(node.weight > 0) || state.weight === 'count';
	const by = new Map();
	node.through.forEach(function (p) {
		const w = useCount ? p.count : p.time;
		const k = by.get(p.kind) || { weight: 0, change: 0 };
		k.weight += w;
		k.change += w * (p.diff.change_pct || 0);
		by.set(p.kind, k);
	});
	return DIFF_KINDS.filter(function (k) { return by.has(k); }).map(function (k) {
		const v = by.get(k);
		return { kind: k, weight: v.weight, change: v.weight ? v.change / v.weight : 0 };
	});
}

/* diff's row of each node, by frame id. */
const diffRows = new Map(diff ? diff.paths.map(function (d) { return ['p' + d.id, d]; }) : []);

/* A frame whose node diff judged takes that verdict's colour; otherwise
 * one verdict of its paths: that colour (only-in marks come from the CSS
 * class); several: bands as wide as their paths' share of the frame. */
function paintDiff(f, node) {
	const own = diffRows.get(node.id);
	const kinds = own && own.in === 'both' && own.verdict !== 'untimed'
		? [{ kind: kindOf(own), weight: 1, change: own.change_pct || 0 }] : kindsOf(node);
	if (kinds.length === 1) {
		f.dataset.verdict = kinds[0].kind;
		f.classList.add('diff-' + kinds[0].kind);
		f.style.backgroundColor = kindColour(kinds[0].kind, kinds[0].change);
		return;
	}
	f.dataset.verdict = 'mixed';
	const total = kinds.reduce(function (a, k) { return a + k.weight; }, 0);
	let at = 0;
	const stops = kinds.map(function (k) {
		const from = at;
		at += total ? 100 * k.weight / total : 100 / kinds.length;
		const c = kindColour(k.kind, k.change);
		return c + ' ' + from.toFixed(2) + '%, ' + c + ' ' + at.toFixed(2) + '%';
	});
	f.style.backgroundImage = 'linear-gradient(to right, ' + stops.join(', ') + ')';
}

function diffTitle(node) {
	return kindsOf(node).map(function (k) {
		const n = node.through.filter(function (p) { return p.kind === k.kind; }).length;
		return n + ' path' + (n === 1 ? '' : 's') + ' ' + KIND_TEXT[k.kind];
	}).join(', ');
}

function fmtSigned(x, decimals) {
	if (x === null || !isFinite(x))
		return '-';
	const body = decimals ? Math.abs(x).toFixed(decimals) : String(Math.abs(roundEven(x)));
	return (x < 0 || Object.is(x, -0) ? '-' : '+') + body;
}

function fmtOpt(x, decimals) {
	return x === null || !isFinite(x) ? '-' : decimals ? x.toFixed(decimals) : fmtInt(x);
}

/* diff's pct(): relative to A, undefined when A is 0 or missing. */
function changePct(a, b) { return a > 0 && b !== null ? (b - a) / a * 100 : null; }

const DIFF_SORT = {
	verdict: function (d) { return d.in === 'both' ? d.verdict : 'only in ' + d.in; },
	count_a: function (d) { return d.count_a; },
	count_b: function (d) { return d.count_b; },
	mean_a: function (d) { return d.mean_ns_a === null ? -Infinity : d.mean_ns_a; },
	mean_b: function (d) { return d.mean_ns_b === null ? -Infinity : d.mean_ns_b; },
	change: function (d) { return d.change_ns === null ? -Infinity : d.change_ns; },
	change_pct: function (d) { return d.change_pct === null ? -Infinity : d.change_pct; },
	impact: function (d) { return d.impact_ns === null ? 0 : Math.abs(d.impact_ns); },
};

/* The paths table's columns for a diff, replacing the report's. */
function diffHead() {
	const tr = el('tr');
	[['rank', '#'], ['verdict', 'verdict'], ['count_a', 'count A'], ['count_b', 'count B'],
		['mean_a', 'mean A (' + unit + ')'], ['mean_b', 'mean B (' + unit + ')'],
		['change', 'change (' + unit + ')'], ['change_pct', 'change %'],
		['impact', 'impact (' + unit + ')'], ['id', 'id'], ['path', 'path']].forEach(function (c) {
		const th = el('th', null, c[1]);
		th.dataset.key = c[0];
		tr.appendChild(th);
	});
	$('paths-table').querySelector('thead').replaceChildren(tr);
	const seg = el('tr');
	['node', 'calls A', 'calls B', 'mean A', 'mean B', 'change', '%', 'p50 A', 'p50 B',
		'change', '%', 'p99 A', 'p99 B', 'change', '%'].forEach(function (t) {
		seg.appendChild(el('th', null, t));
	});
	$('seg-table').querySelector('thead').replaceChildren(seg);
	$('seg-table').querySelector('caption').textContent = 'Nodes along this path ' +
		'context in A and B (inclusive time per call in ' + unit + ', calls per run, change = B \u2212 A, % of A); ' +
		'click a row for its histograms';
}

/* diff's numbers as its JSON gives them. */
function diffCells(tr, p) {
	const d = p.diff;
	tr.dataset.verdict = p.kind;
	const v = el('td', 'verdict', d.in === 'both' ? d.verdict : KIND_TEXT[p.kind]);
	v.style.backgroundColor = kindColour(p.kind, d.change_pct);
	tr.appendChild(v);
	tr.appendChild(el('td', 'num', fmtCount(d.count_a)));
	tr.appendChild(el('td', 'num', fmtCount(d.count_b)));
	tr.appendChild(el('td', 'num', fmtOpt(d.mean_ns_a, 1)));
	tr.appendChild(el('td', 'num', fmtOpt(d.mean_ns_b, 1)));
	tr.appendChild(el('td', 'num', fmtSigned(d.change_ns, 1)));
	tr.appendChild(el('td', 'num', fmtSigned(d.change_pct, 2)));
	tr.appendChild(el('td', 'num', fmtSigned(d.impact_ns, 1)));
}

function sideText(side) {
	const n = side.runs.length;
	return (n === 1 ? side.runs[0] : n + ' runs (' + side.runs[0] + ', ...)') + ', ' +
		fmtTime(side.total_ns_per_run) + ' per run';
}

function diffSummary() {
	document.title = 'pathprof diff: ' + (data.command || data.frontend || 'report');
	document.querySelector('h1').textContent = 'pathprof diff';
	const dl = $('summary');
	statItem(dl, 'A (baseline)', sideText(diff.a)).classList.add('wide');
	statItem(dl, 'B', sideText(diff.b)).classList.add('wide');
	statItem(dl, 'change', fmtSigned(diff.b.total_ns_per_run - diff.a.total_ns_per_run, 0) +
		' ' + unit + ' per run in total (' + fmtSigned(changePct(diff.a.total_ns_per_run,
			diff.b.total_ns_per_run), 1) + '%); ' + diff.paths.length + ' paths: ' +
		['both', 'a', 'b'].map(function (w) {
			return diff.paths.filter(function (d) { return d.in === w; }).length + ' ' +
				(w === 'both' ? 'in both' : 'only in ' + w.toUpperCase());
		}).join(', ')).classList.add('wide');
	statItem(dl, 'command', data.command || '-');
	statItem(dl, 'frontend', data.frontend || '-');
	statItem(dl, 'interval', diff.interval);
	document.querySelectorAll('.unit').forEach(function (u) { u.textContent = unit; });
	renderLegend();
}

function renderLegend() {
	const box = $('legend');
	box.hidden = false;
	box.replaceChildren();
	box.appendChild(el('strong', null, 'Change = B \u2212 A'));
	box.appendChild(el('span', 'legend-note', ' (positive: B counts more or is slower). ' +
		'Colours are the verdicts of pathprof diff per path; a frame shared by paths with ' +
		'different verdicts is split in proportion to their weight. No clear change: ' +
		'the 95% interval includes 0 or the change is within the noise floor (at least ' +
		diff.min_change_pct + '%). Widths are per run, B\'s (A\'s for a path only in A).'));
	const keys = el('div', 'legend-keys');
	DIFF_KINDS.forEach(function (k) {
		const item = el('span', 'legend-item');
		const sw = el('span', 'swatch diff-' + k);
		sw.style.backgroundColor = kindColour(k, 100);
		item.appendChild(sw);
		item.appendChild(el('span', null, KIND_TEXT[k]));
		keys.appendChild(item);
	});
	box.appendChild(keys);
}

function diffTopPath() {
	const best = paths.filter(passes).find(function (p) { return p.diff.impact_ns; });
	$('top-path-tag').textContent = 'Largest change';
	$('top-path-names').textContent = best ? best.names.join(' > ') : '(no change)';
	$('top-path-value').textContent = !best ? '' : fmtSigned(best.diff.impact_ns, 0) + ' ' +
		unit + ' per run, ' + (best.diff.in === 'both' ? best.diff.verdict : KIND_TEXT[best.kind]);
}

/* The clicked frame on both sides: its verdict(s), then per node along it
 * merge of A's and of B's paths through it, as the report merges them. */
function renderDiffDetails(node, names) {
	const stats = $('details-stats');
	stats.replaceChildren();
	const ends = node.through.filter(function (p) { return p.names.length === node.depth; });
	const sum = function (f) { return node.through.reduce(function (a, p) { return a + f(p.diff); }, 0); };
	statItem(stats, 'verdict', ends.length === 1 && node.through.length === 1
		? (ends[0].diff.in === 'both' ? ends[0].diff.verdict : KIND_TEXT[ends[0].kind])
		: diffTitle(node));
	statItem(stats, 'leaf returns A', fmtCount(sum(function (d) { return d.count_a; })));
	statItem(stats, 'leaf returns B', fmtCount(sum(function (d) { return d.count_b; })));
	if (node.through.length === 1) {
		const d = node.through[0].diff;
		/* diff's numbers are per path: here the one path through. */
		statItem(stats, 'path mean A', fmtOpt(d.mean_ns_a, 1) + ' ' + unit);
		statItem(stats, 'path mean B', fmtOpt(d.mean_ns_b, 1) + ' ' + unit);
		statItem(stats, 'path change', fmtSigned(d.change_ns, 1) + ' ' + unit + ' (' +
			fmtSigned(d.change_pct, 2) + '%)');
		if (d.interval_ns[0] !== null)
			statItem(stats, '95% interval', '[' + fmtSigned(d.interval_ns[0], 1) + ', ' +
				fmtSigned(d.interval_ns[1], 1) + '] ' + unit);
		if (d.noise_pct !== null)
			statItem(stats, 'noise floor', d.noise_pct.toFixed(2) + '%');
	}
	statItem(stats, 'paths through', String(node.through.length));
	statItem(stats, 'id', node.id);

	const body = $('seg-table').querySelector('tbody');
	body.replaceChildren();
	const chain = chainOf(node);
	const sides = ['a', 'b'].map(function (s) {
		const nodes = s === 'a' ? nodesA : nodesB;
		const any = chain.some(function (n) { return nodes.has(n.id); });
		return {
			merged: any ? chain.map(function (n) {
				const info = nodes.get(n.id);
				return info ? mergeSegs([info.incl]) : null; /* '-': not on this side */
			}) : [],
			rate: s === 'a' ? dataA.ticks_per_ns : data.ticks_per_ns,
			runs: s === 'a' ? diff.a.runs.length : diff.b.runs.length,
		};
	});
	const timed = sides[0].merged.length || sides[1].merged.length;
	$('seg-table').hidden = !timed;
	$('seg-none').hidden = !!timed;
	$('hist-figure').hidden = !timed;
	if (!timed)
		return;
	if (state.segIndex === null)
		state.segIndex = node.depth - 1;
	for (let d = 0; d < node.depth; d++) {
		const tr = el('tr');
		tr.appendChild(el('td', 'name', names[d]));
		const v = sides.map(function (s) {
			const m = s.merged[d];
			if (!m || !m.count)
				return { count: m ? 0 : null, mean: null, p50: null, p99: null };
			return {
				count: m.count / s.runs,
				mean: nsAt(s.rate, m.sum) / m.count,
				p50: nsAt(s.rate, percentile(m, 50)),
				p99: nsAt(s.rate, percentile(m, 99)),
			};
		});
		tr.appendChild(el('td', 'num', v[0].count === null ? '-' : fmtCount(v[0].count)));
		tr.appendChild(el('td', 'num', v[1].count === null ? '-' : fmtCount(v[1].count)));
		['mean', 'p50', 'p99'].forEach(function (k) {
			const a = v[0][k], b = v[1][k];
			tr.appendChild(el('td', 'num', fmtOpt(a, 0)));
			tr.appendChild(el('td', 'num', fmtOpt(b, 0)));
			tr.appendChild(el('td', 'num', a === null || b === null ? '-' : fmtSigned(b - a, 0)));
			tr.appendChild(el('td', 'num', a === null || b === null ? '-' : fmtSigned(changePct(a, b), 2)));
		});
		if (d === state.segIndex)
			tr.classList.add('current');
		tr.addEventListener('click', function () {
			state.segIndex = d;
			renderDetails();
		});
		body.appendChild(tr);
	}
	renderHistAB(sides[0].merged[state.segIndex], sides[1].merged[state.segIndex], names[state.segIndex]);
}

/* A's and B's buckets side by side (A grey, B in colour), each as a share
 * of its own events, since the two sides may count differently. */
function renderHistAB(ma, mb, name) {
	const h = $('hist');
	h.replaceChildren();
	h.classList.add('ab');
	yAxis(0, function () { return ''; });
	const ms = [ma, mb].map(function (m) { return m && m.count ? m : null; });
	$('hist-title').textContent = 'Histograms of the inclusive time of "' + name + '": A (grey) ' +
		(ms[0] ? ms[0].count : 0) + ', B (colour) ' + (ms[1] ? ms[1].count : 0) +
		' timed events over all runs; log-linear buckets, heights as shares of each side';
	const present = ms.filter(Boolean);
	if (!present.length)
		return;
	const lo = Math.min.apply(null, present.map(function (m) { return m.sorted[0]; }));
	const hi = Math.max.apply(null, present.map(function (m) { return m.sorted[m.sorted.length - 1]; }));
	let top = 0;
	present.forEach(function (m) {
		m.bins.forEach(function (c) { top = Math.max(top, c / m.count); });
	});
	yAxis(top, function (v) { return (100 * v).toFixed(1) + '%'; });
	for (let b = lo; b <= hi; b++) {
		const pair = el('div', 'pair');
		ms.forEach(function (m, side) {
			const c = m ? m.bins.get(b) || 0 : 0;
			const bar = el('div', 'bar ' + (side ? 'side-b' : 'side-a') + (c ? '' : ' empty'));
			bar.style.height = (c ? Math.max(1, 100 * c / m.count / top) : 0) + '%';
			bar.title = (side ? 'B ' : 'A ') + fmtInt(ns(bucketLow(b))) + '..' +
				fmtInt(ns(b >= HIST_BUCKETS - 1 ? NOMINAL_TOP - 1 : bucketLow(b + 1) - 1)) +
				' ' + unit + ': ' + c;
			pair.appendChild(bar);
		});
		h.appendChild(pair);
	}
	$('hist-lo').textContent = fmtTime(ns(bucketLow(lo)));
	$('hist-hi').textContent = fmtTime(ns(hi >= HIST_BUCKETS - 1 ? NOMINAL_TOP - 1 : bucketLow(hi + 1) - 1));
}

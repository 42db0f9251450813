/* pathprof HTML report: builds the page from the JSON export embedded in
 * #pp-data (schema in docs/cli.md) and the DOT node ids in #pp-ids. For a
 * diff (`pathprof diff --format html`) #pp-data is B, #pp-data-a is A and
 * #pp-diff is diff's JSON: frames take the colour of diff's own verdicts, so
 * page, text and JSON never disagree. Every name reaches the page through
 * textContent or an attribute value, never through markup, so a function
 * named like a script tag shows as text. */
'use strict';
(function () {
	function block(id) { return JSON.parse(document.getElementById(id).textContent); }
	const data = block('pp-data');
	const prefixIds = block('pp-ids');
	const diff = block('pp-diff'); /* null: a plain report */
	const dataA = diff && block('pp-data-a'), idsA = diff && block('pp-ids-a');
	const rate = data.ticks_per_ns; /* null: the tick rate is unknown */
	const unit = rate ? 'ns' : 'ticks';
	const HIST_SUB_BITS = data.hist.sub_bits, HIST_BUCKETS = data.hist.buckets;
	const HIST_SUB = 1 << HIST_SUB_BITS;
	const NOMINAL_TOP = Math.pow(2, data.hist.rows + HIST_SUB_BITS - 1);

	const paths = diff ? diffPaths() : data.paths.map(function (p, i) {
		return {
			index: i,
			id: p.id,
			count: p.count,
			time: p.time_ns === null ? 0 : p.time_ns,
			timed: p.time_ns !== null,
			names: p.path,
			nodeIds: prefixIds[i],
			segments: p.segments,
			rate: rate,
			runs: 1,
		};
	});
	const totalCount = paths.reduce(function (a, p) { return a + p.count; }, 0);
	const totalTime = paths.reduce(function (a, p) { return a + p.time; }, 0);
	const anyTimed = paths.some(function (p) { return p.timed; });

	const state = {
		weight: anyTimed ? 'time' : 'count',
		search: '',
		minCount: 0,
		minTime: 0,
		selected: null, /* node id */
		segIndex: null, /* segment row whose histogram is shown */
		sortKey: 'weight',
		sortDesc: true,
	};
	let tree = null, nodesById = new Map();

	/* ---- small helpers ---- */

	function $(id) { return document.getElementById(id); }

	function el(tag, cls, text) {
		const e = document.createElement(tag);
		if (cls)
			e.className = cls;
		if (text !== undefined)
			e.textContent = String(text);
		return e;
	}

	/* Rounds half to even, as the text report's "%.0f" does, so both show
	 * the same numbers. */
	function roundEven(x) {
		const r = Math.round(x);
		if (Math.abs(x % 1) === 0.5 && r % 2 !== 0)
			return r - 1;
		return r;
	}

	function ns(ticks) { return nsAt(rate, ticks); }

	/* As pp__ticks_ns(): ticks when the rate is unknown. */
	function nsAt(r, ticks) { return r ? ticks / r : ticks; }

	function fmtInt(v) { return String(roundEven(v)); }

	/* Counts are whole for one run, means over runs with one decimal, as
	 * diff's text prints them. */
	function fmtCount(c) { return c === Math.floor(c) ? String(c) : c.toFixed(1); }

	function fmtTime(v) {
		if (!rate)
			return fmtInt(v) + ' ticks';
		if (v < 1e3)
			return v.toFixed(0) + ' ns';
		if (v < 1e6)
			return (v / 1e3).toFixed(2) + ' us';
		if (v < 1e9)
			return (v / 1e6).toFixed(2) + ' ms';
		return (v / 1e9).toFixed(2) + ' s';
	}

	function pct(a, b) { return b ? (100 * a / b).toFixed(2) + '%' : '-'; }

	/* A warm colour per name, stable across reloads, like flame graphs. */
	function colourOf(name) {
		let h = 2166136261;
		for (let i = 0; i < name.length; i++)
			h = Math.imul(h ^ name.charCodeAt(i), 16777619) >>> 0;
		const hue = h % 50, light = 58 + (h >>> 8) % 14;
		return 'hsl(' + hue + ', 82%, ' + light + '%)';
	}

	/* ---- histograms: the runtime's log-linear buckets (runtime/hist.h) ---- */

	function bucketLow(b) {
		const row = b >> HIST_SUB_BITS, sub = b & (HIST_SUB - 1);
		if (row === 0)
			return sub;
		return Math.pow(2, row + HIST_SUB_BITS - 1) + sub * Math.pow(2, row - 1);
	}

	function bucketMid(b) {
		const lo = bucketLow(b);
		const hi = b >= HIST_BUCKETS - 1 ? NOMINAL_TOP - 1 : bucketLow(b + 1) - 1;
		return lo + Math.floor((hi - lo) / 2);
	}

	/* Segments merge exactly: counts, sums, extremes and bins add up. */
	function mergeSegs(list) {
		const m = { count: 0, sum: 0, min: Infinity, max: 0, bins: new Map() };
		list.forEach(function (s) {
			if (!s.count)
				return;
			m.count += s.count;
			m.sum += s.sum_ticks;
			m.min = Math.min(m.min, s.min_ticks);
			m.max = Math.max(m.max, s.max_ticks);
			s.bins.forEach(function (bc) {
				m.bins.set(bc[0], (m.bins.get(bc[0]) || 0) + bc[1]);
			});
		});
		m.sorted = Array.from(m.bins.keys()).sort(function (a, b) { return a - b; });
		return m;
	}

	/* Nearest rank over the bins, bucket midpoint clamped to [min, max]:
	 * the rule of pp__seg_percentile(). */
	function percentile(m, p) {
		if (!m.count)
			return 0;
		let rank = Math.ceil(p * m.count / 100);
		rank = Math.max(1, Math.min(rank, m.count));
		let seen = 0, b = m.sorted[m.sorted.length - 1];
		for (let i = 0; i < m.sorted.length; i++) {
			seen += m.bins.get(m.sorted[i]);
			if (seen >= rank) {
				b = m.sorted[i];
				break;
			}
		}
		return Math.min(Math.max(bucketMid(b), m.min), m.max);
	}

	/* ---- the path tree of the paths passing the thresholds ---- */

	function passes(p) {
		return p.count >= state.minCount && (!state.minTime || p.time >= state.minTime);
	}

	function weightOf(p) { return state.weight === 'time' ? p.time : p.count; }

	function buildTree(list) {
		const root = { id: 'root', name: 'all', depth: 0, children: new Map(), count: 0,
			time: 0, weight: 0, through: [] };
		nodesById = new Map();
		list.forEach(function (p) {
			let node = root, rest = p.time;
			root.count += p.count;
			root.time += p.time;
			root.weight += weightOf(p);
			for (let d = 0; d < p.names.length; d++) {
				const id = p.nodeIds[d];
				let child = node.children.get(id);
				if (!child) {
					child = { id: id, name: p.names[d], depth: d + 1, parent: node,
						children: new Map(), count: 0, time: 0, self: 0, weight: 0,
						through: [] };
					node.children.set(id, child);
					nodesById.set(id, child);
				}
				const self = p.segments ? nsAt(p.rate, p.segments[d].sum_ticks) / p.runs : 0;
				child.count += p.count;
				child.time += rest;
				child.self += self;
				child.weight += weightOf(p);
				child.through.push(p);
				rest -= self;
				node = child;
			}
		});
		return root;
	}

	function matches(name) {
		return state.search !== '' && name.toLowerCase().indexOf(state.search) >= 0;
	}

	/* ---- icicle ---- */

	const ROW = 21;

	function renderFlame() {
		const flame = $('flame');
		flame.replaceChildren();
		let maxDepth = 0;
		const frag = document.createDocumentFragment();
		function place(node, x, w) {
			if (w < 0.0005) /* under a pixel on most screens */
				return;
			maxDepth = Math.max(maxDepth, node.depth);
			const f = el('div', 'frame' + (node.depth ? '' : ' root'), node.name);
			if (node.depth) {
				f.id = node.id;
				if (diff)
					paintDiff(f, node);
				else
					f.style.background = colourOf(node.name);
			}
			f.setAttribute('role', 'treeitem');
			f.style.left = (100 * x) + '%';
			f.style.width = (100 * w) + '%';
			f.style.top = (node.depth * ROW) + 'px';
			const v = state.weight === 'time' ? fmtTime(node.weight) : fmtCount(node.weight) + ' leaf returns';
			f.title = node.name + '\n' + v + (diff ? ' per run in B' : '') + ' (' +
				pct(node.weight, tree.weight) + ')' + (diff && node.depth ? '\n' + diffTitle(node) : '');
			if (state.search !== '' && node.depth)
				f.classList.add(matches(node.name) ? 'match' : 'dim');
			if (node.id === state.selected)
				f.classList.add('selected');
			if (node.depth)
				f.addEventListener('click', function () { select(node.id); });
			frag.appendChild(f);
			const kids = Array.from(node.children.values()).sort(function (a, b) {
				return b.weight - a.weight || (a.name < b.name ? -1 : a.name > b.name);
			});
			let cx = x;
			kids.forEach(function (k) {
				const kw = node.weight ? w * k.weight / node.weight : 0;
				place(k, cx, kw);
				cx += kw;
			});
		}
		if (tree.weight > 0)
			place(tree, 0, 1);
		flame.style.height = ((maxDepth + 1) * ROW + 2) + 'px';
		flame.appendChild(frag);
	}

	/* ---- details of a frame ---- */

	function statItem(dl, key, value) {
		const d = el('div');
		d.appendChild(el('dt', null, key));
		d.appendChild(el('dd', null, value));
		dl.appendChild(d);
		return d;
	}

	function select(id) {
		state.selected = id;
		state.segIndex = null;
		document.querySelectorAll('.frame.selected').forEach(function (f) {
			f.classList.remove('selected');
		});
		const f = document.getElementById(id);
		if (f && f.classList.contains('frame'))
			f.classList.add('selected');
		renderDetails();
		renderPaths();
	}

	function renderDetails() {
		const box = $('details'), node = state.selected && nodesById.get(state.selected);
		if (!node) {
			box.hidden = true;
			return;
		}
		box.hidden = false;
		const names = node.through[0].names.slice(0, node.depth);
		$('details-title').textContent = node.name;
		$('details-path').textContent = names.join(' > ');
		if (diff) {
			renderDiffDetails(node, names);
			return;
		}
		const stats = $('details-stats');
		stats.replaceChildren();
		statItem(stats, 'leaf returns', node.count + ' (' + pct(node.count, totalCount) + ')');
		if (node.through.some(function (p) { return p.timed; })) {
			statItem(stats, 'time from entry', fmtTime(node.time) + ' (' + pct(node.time, totalTime) + ')');
			statItem(stats, 'own segment', fmtTime(node.self));
		}
		statItem(stats, 'paths through', String(node.through.length));
		statItem(stats, 'id', node.id);

		const body = $('seg-table').querySelector('tbody');
		body.replaceChildren();
		const timed = node.through.filter(function (p) { return p.segments; });
		$('seg-table').hidden = !timed.length;
		$('seg-none').hidden = !!timed.length;
		$('hist-figure').hidden = !timed.length;
		if (!timed.length)
			return;
		const merged = [];
		for (let d = 0; d < node.depth; d++)
			merged.push(mergeSegs(timed.map(function (p) { return p.segments[d]; })));
		if (state.segIndex === null)
			state.segIndex = node.depth - 1;
		merged.forEach(function (m, d) {
			const tr = el('tr');
			tr.appendChild(el('td', 'name', names[d]));
			const mean = m.count ? ns(m.sum) / m.count : 0;
			[m.count, mean, ns(percentile(m, 50)), ns(percentile(m, 90)),
				ns(percentile(m, 99)), ns(m.max)].forEach(function (v) {
				tr.appendChild(el('td', 'num', fmtInt(v)));
			});
			if (d === state.segIndex)
				tr.classList.add('current');
			tr.addEventListener('click', function () {
				state.segIndex = d;
				renderDetails();
			});
			body.appendChild(tr);
		});
		renderHist(merged[state.segIndex], names[state.segIndex]);
	}

	/* Every bucket from the lowest to the highest non-empty one, so gaps show
	 * as gaps; heights are counts relative to the fullest bucket. */
	function renderHist(m, name) {
		const h = $('hist');
		h.replaceChildren();
		h.classList.remove('ab');
		$('hist-title').textContent = 'Histogram of segment "' + name + '": ' + m.count +
			' timed events, log-linear buckets';
		if (!m.count)
			return;
		const lo = m.sorted[0], hi = m.sorted[m.sorted.length - 1];
		let top = 0;
		m.bins.forEach(function (c) { top = Math.max(top, c); });
		for (let b = lo; b <= hi; b++) {
			const c = m.bins.get(b) || 0;
			const bar = el('div', c ? 'bar' : 'bar empty');
			bar.style.height = (c ? Math.max(1, 100 * c / top) : 0) + '%';
			const hiVal = b >= HIST_BUCKETS - 1 ? m.max : bucketLow(b + 1) - 1;
			bar.title = fmtInt(ns(bucketLow(b))) + '..' + fmtInt(ns(hiVal)) + ' ' + unit + ': ' + c;
			h.appendChild(bar);
		}
		$('hist-lo').textContent = fmtTime(ns(bucketLow(lo)));
		$('hist-hi').textContent = fmtTime(ns(hi >= HIST_BUCKETS - 1 ? m.max : bucketLow(hi + 1) - 1));
	}

	/* ---- paths table ---- */

	const MAX_ROWS = 1000; /* beyond this a table is unreadable and slow */

	function sortValue(p, key) {
		switch (key) {
		case 'count': case 'share': return p.count;
		case 'time': case 'tshare': return p.time;
		case 'id': return p.id;
		case 'path': return p.names.join('\u0000');
		default:
			if (diff && key in DIFF_SORT)
				return DIFF_SORT[key](p.diff);
			return weightOf(p);
		}
	}

	function renderPaths() {
		const body = $('paths-table').querySelector('tbody');
		body.replaceChildren();
		let list = paths.filter(passes);
		if (state.search !== '')
			list = list.filter(function (p) { return p.names.some(matches); });
		/* A diff keeps diff's own order: impact, largest first. */
		const byWeight = list.slice().sort(diff ? function (a, b) { return a.index - b.index; } : function (a, b) {
			return weightOf(b) - weightOf(a) || b.count - a.count || a.index - b.index;
		});
		const rank = new Map();
		byWeight.forEach(function (p, i) { rank.set(p, diff ? p.index + 1 : i + 1); });
		const key = state.sortKey;
		if (key === 'weight' || key === 'rank') {
			list = byWeight;
			if (key === 'rank' && !state.sortDesc)
				list.reverse();
		} else {
			list.sort(function (a, b) {
				const va = sortValue(a, key), vb = sortValue(b, key);
				const c = va < vb ? -1 : va > vb ? 1 : a.index - b.index;
				return state.sortDesc ? -c : c;
			});
		}
		document.querySelectorAll('#paths-table th').forEach(function (th) {
			th.classList.remove('sorted-asc', 'sorted-desc');
			if (th.dataset.key === key || (key === 'weight' && th.dataset.key === 'rank'))
				th.classList.add(state.sortDesc && key !== 'rank' ? 'sorted-desc' : 'sorted-asc');
		});
		const sel = state.selected && nodesById.get(state.selected);
		list.slice(0, MAX_ROWS).forEach(function (p) {
			const tr = el('tr');
			tr.dataset.pathId = p.id;
			tr.appendChild(el('td', 'num', rank.get(p)));
			if (diff) {
				diffCells(tr, p);
			} else {
				tr.appendChild(el('td', 'num', p.count));
				tr.appendChild(el('td', 'num', pct(p.count, totalCount)));
				tr.appendChild(el('td', 'num', p.timed ? fmtInt(p.time) : '-'));
				tr.appendChild(el('td', 'num', p.timed ? pct(p.time, totalTime) : '-'));
			}
			tr.appendChild(el('td', 'id', p.id));
			const td = el('td', 'name');
			p.names.forEach(function (n, i) {
				if (i)
					td.appendChild(el('span', 'sep', '>'));
				td.appendChild(el('span', matches(n) ? 'hit' : null, n));
			});
			tr.appendChild(td);
			if (sel && sel.through.indexOf(p) >= 0)
				tr.classList.add('selected');
			tr.addEventListener('click', function () {
				select(p.nodeIds[p.nodeIds.length - 1]);
			});
			body.appendChild(tr);
		});
		const more = $('paths-more');
		more.hidden = list.length <= MAX_ROWS;
		more.textContent = 'Showing ' + MAX_ROWS + ' of ' + list.length + ' paths.';
		$('status').textContent = list.length + ' of ' + paths.length + ' paths shown';
	}

	/* ---- header ---- */

	function renderSummary() {
		if (diff) {
			diffSummary();
			return;
		}
		document.title = 'pathprof: ' + (data.command || data.frontend || 'report');
		const dl = $('summary');
		statItem(dl, 'command', data.command || '-');
		statItem(dl, 'frontend', data.frontend || '-');
		statItem(dl, 'events', String(data.events));
		statItem(dl, 'leaf returns', String(data.records));
		statItem(dl, 'paths', data.selection.shown + ' of ' + data.total_paths);
		statItem(dl, 'drops', data.drops_table + ' (table), ' + data.drops_depth + ' (depth)');
		statItem(dl, 'threads', String(data.threads));
		statItem(dl, 'tick rate', rate ? rate.toFixed(3) + ' GHz' : 'unknown (times in ticks)');
		statItem(dl, 'timing', data.timing === 'sample' ? 'sample, 1 in ' + data.sample_n : data.timing);
		document.querySelectorAll('.unit').forEach(function (u) { u.textContent = unit; });
	}

	function renderTopPath() {
		if (diff) {
			diffTopPath();
			return;
		}
		let best = null;
		paths.filter(passes).forEach(function (p) {
			if (!best || weightOf(p) > weightOf(best) ||
			    (weightOf(p) === weightOf(best) && p.count > best.count))
				best = p;
		});
		$('top-path-names').textContent = best ? best.names.join(' > ') : '(no path)';
		$('top-path-value').textContent = !best ? '' : state.weight === 'time'
			? fmtTime(best.time) + ', ' + best.count + ' leaf returns'
			: best.count + ' leaf returns (' + pct(best.count, totalCount) + ')';
	}

	function render() {
		tree = buildTree(paths.filter(passes));
		renderTopPath();
		renderFlame();
		if (state.selected && !nodesById.has(state.selected))
			state.selected = null;
		renderDetails();
		renderPaths();
	}

	/* ---- diff mode: B's tree coloured by diff's verdicts against A ---- */

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
		return diff.paths.map(function (d, i) {
			const ia = inA.get(d.id), ib = inB.get(d.id);
			const a = ia === undefined ? null : dataA.paths[ia];
			const b = ib === undefined ? null : data.paths[ib];
			const own = b || a, runs = b ? runsB : runsA;
			return {
				index: i,
				id: d.id,
				count: own.count / runs,
				time: own.time_ns === null ? 0 : own.time_ns / runs,
				timed: own.time_ns !== null,
				names: own.path,
				nodeIds: b ? prefixIds[ib] : idsA[ia],
				segments: own.segments,
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
		if (d.verdict === 'slower' || d.verdict === 'faster' || d.verdict === 'untimed')
			return d.verdict;
		return 'same';
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

	/* One verdict: that colour (only-in marks come from the CSS class);
	 * several: bands as wide as their paths' share of the frame. */
	function paintDiff(f, node) {
		const kinds = kindsOf(node);
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
		['segment', 'count A', 'count B', 'mean A', 'mean B', 'change', '%', 'p50 A', 'p50 B',
			'change', '%', 'p99 A', 'p99 B', 'change', '%'].forEach(function (t) {
			seg.appendChild(el('th', null, t));
		});
		$('seg-table').querySelector('thead').replaceChildren(seg);
		$('seg-table').querySelector('caption').textContent = 'Segments along this path ' +
			'context in A and B (time in ' + unit + ', counts per run, change = B \u2212 A, % of A); ' +
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

	/* The clicked frame on both sides: its verdict(s), then per segment the
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
		const sides = ['a', 'b'].map(function (s) {
			const list = node.through.filter(function (p) { return p[s] && p[s].segments; });
			const merged = [];
			for (let d = 0; list.length && d < node.depth; d++)
				merged.push(mergeSegs(list.map(function (p) { return p[s].segments[d]; })));
			return {
				merged: merged,
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
		const ms = [ma, mb].map(function (m) { return m && m.count ? m : null; });
		$('hist-title').textContent = 'Histograms of segment "' + name + '": A (grey) ' +
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

	/* ---- controls ---- */

	function number(input) {
		const v = Number(input.value);
		return isFinite(v) && v > 0 ? v : 0;
	}

	const weight = $('weight');
	if (!anyTimed)
		weight.querySelector('option[value=time]').disabled = true;
	weight.value = state.weight;
	weight.addEventListener('change', function () { state.weight = weight.value; render(); });
	$('search').addEventListener('input', function (e) {
		state.search = e.target.value.trim().toLowerCase();
		renderFlame();
		renderPaths();
	});
	$('min-count').addEventListener('input', function (e) { state.minCount = number(e.target); render(); });
	$('min-time').addEventListener('input', function (e) { state.minTime = number(e.target); render(); });
	if (diff)
		diffHead();
	document.querySelectorAll('#paths-table th').forEach(function (th) {
		th.addEventListener('click', function () {
			const key = th.dataset.key;
			if (state.sortKey === key)
				state.sortDesc = !state.sortDesc;
			else
				state.sortKey = key, state.sortDesc = key !== 'path' && key !== 'id' && key !== 'rank';
			renderPaths();
		});
	});

	renderSummary();
	render();
})();

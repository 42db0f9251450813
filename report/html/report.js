/* pathprof HTML report: builds the page from the JSON export embedded in
 * #pp-data (schema in docs/reference/cli.md) and the DOT node ids in #pp-ids. For a
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
	/* Calling-context nodes by frame id ('p' + stable id): their calls,
	 * inclusive histogram and self time. */
	function nodeMap(d) {
		const m = new Map();
		d.nodes.forEach(function (n) { m.set('p' + n.id, n); });
		return m;
	}
	const nodesB = nodeMap(data), nodesA = diff ? nodeMap(dataA) : null;

	const paths = diff ? diffPaths() : data.paths.map(function (p, i) {
		return {
			index: i,
			id: p.id,
			count: p.count,
			time: p.self_ns === null ? 0 : p.self_ns,
			timed: p.self_ns !== null,
			names: p.path,
			nodeIds: prefixIds[i],
			nodes: nodesB,
			rate: rate,
			runs: 1,
		};
	});
	const totalCount = paths.reduce(function (a, p) { return a + p.count; }, 0);
	/* the gated time: every node's self time, the roots' inclusive time */
	const totalTime = diff ? diff.b.total_ns_per_run : data.gated_ns;
	const anyTimed = data.nodes.length > 0 || (diff && dataA.nodes.length > 0);

	/* Above the page's size budget the report carried the heaviest paths
	 * and summed the rest in "(other)" paths (report/html_budget.c). */
	const budget = block('pp-budget');
	if (budget) {
		const note = document.getElementById('budget-note');
		note.textContent = budget.diff
			? 'This page lists the ' + budget.kept + ' paths of largest impact of the ' +
				budget.paths + ' compared; the graphs draw those and each side\'s heaviest, ' +
				'and sum the leaf returns of the others in "(other)" frames under their ' +
				'parents (their time is not drawn). pathprof diff --format json has every path.'
			: 'This page carries the ' + budget.kept + ' heaviest of ' + budget.paths +
				' paths; the leaf returns of the other ' + (budget.paths - budget.kept) +
				' are summed in "(other)" frames under their parents (their time is not drawn). ' +
				'pathprof report --format json has every path.';
		note.hidden = false;
	}

	const state = {
		weight: anyTimed ? 'time' : 'count',
		search: '',
		minCount: 0,
		minTime: 0,
		selected: null, /* node id */
		zoom: null,     /* node id the flame graph is zoomed into */
		colour: 'weight',
		segIndex: null, /* node row whose histogram is shown */
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
		return rate ? fmtNs(v) : fmtInt(v) + ' ticks';
	}

	/* A true duration in ns (off-CPU times are, whatever the tick rate). */
	function fmtNs(v) {
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

	/* ---- histograms: the runtime's log-linear buckets (format/hist.h) ---- */

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

	/* Histograms merge exactly: counts, sums, extremes and bins add up. */
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

	/* Frames are the path prefixes of the paths shown; counts add up over
	 * the paths through a frame, times are the frame's node's own
	 * (inclusive and self, per run), so a frame is as wide as its inclusive
	 * time and its children never exceed it. */
	function buildTree(list) {
		const root = { id: 'root', name: 'all', depth: 0, children: new Map(), count: 0,
			time: 0, weight: 0, through: [] };
		const byTime = state.weight === 'time';
		nodesById = new Map();
		list.forEach(function (p) {
			let node = root;
			root.count += p.count;
			if (!byTime)
				root.weight += p.count;
			for (let d = 0; d < p.names.length; d++) {
				const id = p.nodeIds[d];
				let child = node.children.get(id);
				if (!child) {
					const info = p.nodes.get(id) || null;
					child = { id: id, name: p.names[d], depth: d + 1, parent: node,
						children: new Map(), count: 0, weight: 0, through: [], info: info,
						rate: p.rate, runs: p.runs,
						calls: info ? info.calls / p.runs : 0,
						time: info ? nsAt(p.rate, info.incl.sum_ticks + (info.open_ticks || 0)) / p.runs : 0,
						self: info ? nsAt(p.rate, info.self_ticks) / p.runs : 0 };
					if (byTime) {
						child.weight = child.time;
						if (d === 0) {
							root.weight += child.time;
							root.time += child.time;
						}
					}
					node.children.set(id, child);
					nodesById.set(id, child);
				}
				child.count += p.count;
				if (!byTime)
					child.weight += p.count;
				child.through.push(p);
				node = child;
			}
		});
		/* A frame without a timed exit (a thread that never returned, a
		 * root a selection abandoned) is as wide as its children, so its
		 * subtree is drawn and the total is the gated time (#29). */
		if (byTime) {
			const lift = function (n) {
				let kids = 0;
				n.children.forEach(function (c) { kids += lift(c); });
				if (n.depth && n.weight < kids)
					n.weight = kids;
				return n.weight;
			};
			root.weight = 0;
			root.children.forEach(function (c) { root.weight += lift(c); });
			root.time = root.weight;
		}
		return root;
	}

	/* The frames from the root down to node. */
	function chainOf(node) {
		const chain = [];
		for (let n = node; n && n.depth; n = n.parent)
			chain.unshift(n);
		return chain;
	}

	function matches(name) {
		return state.search !== '' && name.toLowerCase().indexOf(state.search) >= 0;
	}

	/* ---- icicle ---- */

	const ROW = 21;

	/* From pale cream (no share) to deep red (all of it), as the DOT graph:
	 * the heaviest frame is the reddest. */
	function colourOfShare(share) {
		const lo = [255, 245, 235], hi = [200, 30, 30];
		const s = Math.max(0, Math.min(1, share || 0));
		return 'rgb(' + lo.map(function (l, i) { return Math.round(l + (hi[i] - l) * s); }).join(',') + ')';
	}

	/* Frames narrower than THIN_PX lose their padding and border (which
	 * would make them wider than their share and cover their neighbours);
	 * siblings narrower than MIN_FRAME_PX are drawn as one '...' frame per
	 * parent instead, so no two frames ever overlap and a click lands on
	 * the frame under the pointer. */
	const THIN_PX = 12, MIN_FRAME_PX = 2;

	function renderFlame() {
		const flame = $('flame');
		flame.replaceChildren();
		let maxDepth = 0, merged = 0;
		const frag = document.createDocumentFragment();
		const widthPx = flame.clientWidth || 1000;
		let zoomed = state.zoom && nodeOf(state.zoom);
		if (state.zoom && !zoomed)
			state.zoom = null;
		function frameAt(cls, text, x, w, depth) {
			const f = el('div', 'frame' + cls + (w * widthPx < THIN_PX ? ' thin' : ''), text);
			f.setAttribute('role', 'treeitem');
			f.style.left = (100 * x) + '%';
			f.style.width = (100 * w) + '%';
			f.style.top = (depth * ROW) + 'px';
			maxDepth = Math.max(maxDepth, depth);
			frag.appendChild(f);
			return f;
		}
		function place(node, x, w) {
			const f = frameAt(node.depth ? '' : ' root', node.name, x, w, node.depth);
			if (node.depth) {
				f.id = node.id;
				if (diff)
					paintDiff(f, node);
				else
					f.style.background = state.colour === 'name' ? colourOf(node.name)
						: colourOfShare(tree.weight ? node.weight / tree.weight : 0);
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
			/* a click selects the frame and, when it has children, zooms
			 * into it; the top frame zooms all the way out */
			f.addEventListener('click', function () {
				if (!node.depth || node.children.size) {
					state.zoom = node.depth ? node.id : null;
					renderFlame();
				}
				if (node.depth)
					select(node.id);
			});
			const kids = Array.from(node.children.values()).sort(function (a, b) {
				return b.weight - a.weight || (a.name < b.name ? -1 : a.name > b.name);
			});
			let cx = x, rest = 0, restWeight = 0;
			kids.forEach(function (k) {
				const kw = node.weight ? w * k.weight / node.weight : 0;
				if (kw * widthPx < MIN_FRAME_PX) {
					rest++;
					restWeight += k.weight;
					return;
				}
				place(k, cx, kw);
				cx += kw;
			});
			const rw = node.weight ? w * restWeight / node.weight : 0;
			if (rest && rw * widthPx >= MIN_FRAME_PX) {
				const m = frameAt(' more', '\u2026', cx, rw, node.depth + 1);
				m.title = rest + ' frames under ' + MIN_FRAME_PX + ' px: ' +
					(state.weight === 'time' ? fmtTime(restWeight) : fmtCount(restWeight) + ' leaf returns') +
					' (' + pct(restWeight, tree.weight) + '); click ' + node.name + ' to zoom in';
			}
			merged += rest;
		}
		if (tree.weight > 0) {
			if (zoomed) {
				/* the zoomed frame's ancestors across the top, full width */
				const chain = [];
				for (let n = zoomed.parent; n; n = n.parent)
					chain.unshift(n);
				chain.forEach(function (n) {
					const f = frameAt(n.depth ? ' ancestor' : ' root', n.name, 0, 1, n.depth);
					if (n.depth)
						f.id = n.id;
					f.title = 'zoom out to ' + n.name;
					f.addEventListener('click', function () {
						state.zoom = n.depth ? n.id : null;
						renderFlame();
						if (n.depth)
							select(n.id);
					});
				});
				place(zoomed, 0, 1);
			} else {
				place(tree, 0, 1);
			}
		}
		flame.style.height = ((maxDepth + 1) * ROW + 2) + 'px';
		flame.appendChild(frag);
		flame.dataset.merged = String(merged);
		$('zoom-status').textContent = zoomed ? 'zoomed into ' + zoomed.name +
			' (click a frame above it to zoom out)' : '';
	}

	function nodeOf(id) {
		let found = null;
		(function walk(n) {
			if (found)
				return;
			if (n.id === id) {
				found = n;
				return;
			}
			n.children.forEach(walk);
		})(tree);
		return found;
	}

	/* ---- details of a frame ---- */

	function statItem(dl, key, value) {
		const d = dl.appendChild(el('div'));
		d.append(el('dt', null, key), el('dd', null, value));
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
		if (node.info) {
			statItem(stats, 'calls', String(node.calls));
			statItem(stats, 'inclusive', fmtTime(node.time) + ' (' + pct(node.time, totalTime) + ')');
			statItem(stats, 'self', fmtTime(node.self) + ' (' + pct(node.self, totalTime) + ')');
		}
		statItem(stats, 'paths through', String(node.through.length));
		statItem(stats, 'id', node.id);
		const off = offcpuOf(node.id);
		if (off) {
			statItem(stats, 'off-CPU', off);
			/* each way it blocked: reason and who woke it; the edge's row
			 * below has the kernel stack */
			offcpu.forEach(function (e) {
				if ('p' + e.blocked_id === node.id)
					statItem(stats, 'blocked (' + e.reason + ')', fmtNs(e.total_ns) + ' in ' +
						e.blocks + ' blocks, woken by ' + whoWoke(e));
			});
		}

		const body = $('seg-table').querySelector('tbody');
		body.replaceChildren();
		const chain = chainOf(node);
		$('seg-table').hidden = !node.info;
		$('seg-none').hidden = !!node.info;
		$('hist-figure').hidden = !node.info;
		if (!node.info)
			return;
		const merged = chain.map(function (n) { return mergeSegs(n.info ? [n.info.incl] : []); });
		if (state.segIndex === null)
			state.segIndex = node.depth - 1;
		merged.forEach(function (m, d) {
			const tr = el('tr');
			tr.appendChild(el('td', 'name', names[d]));
			const mean = m.count ? ns(m.sum) / m.count : 0;
			[m.count, mean, ns(percentile(m, 50)), ns(percentile(m, 90)),
				ns(percentile(m, 99)), ns(m.max), chain[d].self].forEach(function (v) {
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
	/* The y axis: the tallest bar's value at the top, half of it midway. */
	function yAxis(top, fmt) {
		$('hist-ytop').textContent = fmt(top);
		$('hist-ymid').textContent = fmt(top / 2);
	}

	function renderHist(m, name) {
		const h = $('hist');
		h.replaceChildren();
		h.classList.remove('ab');
		yAxis(0, function () { return ''; });
		$('hist-title').textContent = 'Histogram of the inclusive time of "' + name + '": ' + m.count +
			' timed calls, log-linear buckets';
		if (!m.count)
			return;
		const lo = m.sorted[0], hi = m.sorted[m.sorted.length - 1];
		let top = 0;
		m.bins.forEach(function (c) { top = Math.max(top, c); });
		yAxis(top, function (v) { return fmtCount(Math.round(v * 10) / 10) + ' calls'; });
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
		if (diff)
			return diffSummary();
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
		/* the two totals every time on the page is a share of (#29) */
		if (data.end_ns > data.start_ns)
			statItem(dl, 'run', fmtNs(data.end_ns - data.start_ns) + ' (wall)');
		statItem(dl, 'gated time', fmtTime(data.gated_ns) + ' (self times summed over nodes and threads)');
		if ((data.throttled || []).length) /* PATHPROF_BUDGET stopped their gates */
			statItem(dl, 'throttled', data.throttled.map(function (t) { return t.function; }).join(', ') +
				' (gates stopped by the budget; their frames elided after)');
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

	/*PP:OFFCPU_JS*/

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
	/*PP:DIFF_JS*/

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
	$('colour').addEventListener('change', function (e) { state.colour = e.target.value; renderFlame(); });
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
	renderOffcpu();
})();

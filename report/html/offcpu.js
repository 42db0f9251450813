/* The HTML report's off-CPU part (a profile of `pathprof run --offcpu`):
 * the blocking edges as a table, a click showing an edge's blocked and
 * waker paths, reason, times and kernel stack, and what a node's details
 * add about its blocks. embed.py splices this file into report.js at its
 * PP:OFFCPU_JS marker, inside the report's closure (it uses its helpers). */

const offcpu = !diff && data.offcpu ? data.offcpu : [];

function whoWoke(e) {
	if (e.waker === 'path')
		return e.waker_path.join(' > ');
	return { thread: '(a thread outside any gate)', process: '(another process)',
		kernel: '(the kernel: interrupt, timer, kernel thread)' }[e.waker] || '(not seen)';
}

/* A node's off-CPU time while it was the innermost gate, by reason. */
function offcpuOf(id) {
	const by = new Map();
	let all = 0;
	offcpu.forEach(function (e) {
		if ('p' + e.blocked_id !== id)
			return;
		all += e.total_ns;
		by.set(e.reason, (by.get(e.reason) || 0) + e.total_ns);
	});
	if (!all)
		return null;
	return fmtNs(all) + ' (' + Array.from(by.entries()).map(function (r) {
		return r[0] + ' ' + fmtNs(r[1]);
	}).join(', ') + ')';
}

function showEdge(e, row) {
	document.querySelectorAll('#offcpu-table tr.selected').forEach(function (r) {
		r.classList.remove('selected');
	});
	row.classList.add('selected');
	const box = $('offcpu-detail');
	box.hidden = false;
	$('offcpu-detail-title').textContent = e.reason + ': ' + fmtNs(e.total_ns) + ' in ' +
		e.blocks + ' blocks';
	const dl = $('offcpu-detail-stats');
	dl.replaceChildren();
	statItem(dl, 'blocked on', e.blocked.length ? e.blocked.join(' > ') : '(outside any gate)');
	statItem(dl, 'woken by', whoWoke(e));
	statItem(dl, 'per block', 'min ' + fmtNs(e.min_ns) + ', p50 ' + fmtNs(e.p50_ns) +
		', p99 ' + fmtNs(e.p99_ns) + ', max ' + fmtNs(e.max_ns));
	const ol = $('offcpu-stack');
	ol.replaceChildren();
	(e.kernel_stack || []).forEach(function (fn) { ol.appendChild(el('li', null, fn)); });
	/* the blocked node in the graph, when it is drawn */
	if (nodesById.has('p' + e.blocked_id))
		select('p' + e.blocked_id);
}

function renderOffcpu() {
	if (!offcpu.length)
		return;
	$('offcpu-section').hidden = false;
	const total = offcpu.reduce(function (a, e) { return a + e.total_ns; }, 0);
	$('offcpu-note').textContent = offcpu.length + ' blocking edges, ' + fmtNs(total) +
		' off the CPU; click one for its paths and kernel stack.';
	const body = $('offcpu-table').querySelector('tbody');
	body.replaceChildren();
	offcpu.forEach(function (e, i) {
		const tr = el('tr');
		tr.id = 'off' + i;
		[fmtNs(e.total_ns), String(e.blocks), fmtNs(e.p50_ns), fmtNs(e.p99_ns), e.reason,
			e.blocked.length ? e.blocked.join(' > ') : '(outside any gate)', whoWoke(e)
		].forEach(function (v, k) { tr.appendChild(el('td', k < 4 ? 'num' : null, v)); });
		tr.addEventListener('click', function () { showEdge(e, tr); });
		body.appendChild(tr);
	});
}

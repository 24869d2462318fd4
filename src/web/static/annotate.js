// The annotation workspace, keyboard first (progressive enhancement of the plain form). Every choice is
// saved at once (one PUT per choice, all or nothing on the server) and focus moves on; the status bar
// shows progress and whether the last save landed. Keys (listed on the page): j/k or arrows move
// between controls; 1-4 item verdicts; t/f/u claims; p/f pass/fail; 1..k (0 = 10) rating; + and - zoom
// the picture (a click zooms too); n the next answer. The page opens on the first unlabelled control.
(function () {
  'use strict';
  var ws = document.getElementById('workspace');
  var form = document.getElementById('annotate');
  if (!ws || !form) return;
  var answer = ws.getAttribute('data-answer');
  var csrf = ws.getAttribute('data-csrf');
  var nextUrl = ws.getAttribute('data-next');
  var query = ws.getAttribute('data-query') || '';
  var status = document.getElementById('save-status');
  var progress = document.getElementById('progress');
  var units = Array.prototype.slice.call(form.querySelectorAll('fieldset.unit'));
  var current = 0;
  var pending = 0;

  function radios(unit) {
    return Array.prototype.slice.call(unit.querySelectorAll('input[type=radio]'));
  }
  function chosen(unit) {
    return radios(unit).filter(function (r) { return r.checked; })[0] || null;
  }
  function kind(unit) {
    return unit.getAttribute('data-kind');
  }

  function markClaim(unit) {
    Array.prototype.forEach.call(document.querySelectorAll('.claim-text.current'), function (s) { s.classList.remove('current'); });
    if (unit && kind(unit) === 'claim') {
      var span = document.getElementById('claim-text-' + unit.getAttribute('data-key'));
      if (span) {
        span.classList.add('current');
        span.scrollIntoView({ block: 'nearest' });
      }
    }
  }

  function setCurrent(i) {
    current = i;
    units.forEach(function (u, j) { u.classList.toggle('current', j === current); });
    markClaim(units[current]);
  }

  function focusUnit(i) {
    if (units.length === 0) return;
    setCurrent(Math.max(0, Math.min(units.length - 1, i)));
    var rs = radios(units[current]);
    var target = chosen(units[current]) || rs[0];
    if (target) target.focus({ preventScroll: true });
    units[current].scrollIntoView({ block: 'nearest' });
  }

  function count(k) {
    var us = units.filter(function (u) { return kind(u) === k; });
    return { n: us.length, done: us.filter(chosen).length, value: us[0] && chosen(us[0]) ? chosen(us[0]).value : null };
  }

  function updateProgress() {
    var parts = [];
    var items = count('item'), claims = count('claim'), binary = count('binary'), numeric = count('numeric');
    if (items.n) parts.push('Items ' + items.done + '/' + items.n);
    if (claims.n) parts.push('Claims ' + claims.done + '/' + claims.n);
    if (binary.n) parts.push('Pass/fail ' + (binary.value || '—'));
    if (numeric.n) parts.push('Rating ' + (numeric.value || '—'));
    progress.textContent = parts.join(' · ');
  }

  function say(text, cls) {
    status.textContent = text;
    status.classList.remove('saved', 'failed');
    if (cls) status.classList.add(cls);
    status.setAttribute('role', cls === 'failed' ? 'alert' : 'status');
  }

  // What the page last saw of each unit: the label it was rendered with (defaultChecked, which the
  // browser's form restoring leaves alone), then each label this tab saved. Sent as `prev`, so a save over
  // a label another tab changed meanwhile is refused (409) instead of silently replacing it.
  var seen = {};
  units.forEach(function (u) {
    var r = radios(u).filter(function (x) { return x.defaultChecked; })[0];
    seen[u.getAttribute('data-unit')] = r ? r.value : null;
  });

  function bodyOf(unit, value, prev) {
    var k = kind(unit), key = unit.getAttribute('data-key');
    if (k === 'item') return { item: key, label: value, prev: prev };
    if (k === 'claim') return { claim: Number(key), label: value, prev: prev };
    if (k === 'binary') return { binary: value, prev: prev };
    return { rating: Number(value), prev: prev === null ? null : Number(prev) };
  }
  function nameOf(unit, value) {
    var k = kind(unit), key = unit.getAttribute('data-key');
    if (k === 'item') return 'item ' + key + ': ' + value;
    if (k === 'claim') return 'claim ' + (Number(key) + 1) + ': ' + value;
    if (k === 'binary') return 'pass/fail: ' + value;
    return 'rating: ' + value;
  }

  // A conflict: the message names what changed; a link (a fresh load, not a form-restoring reload) shows it.
  function offerReload() {
    var a = document.createElement('a');
    a.href = window.location.href;
    a.id = 'save-reload';
    a.textContent = 'Reload to see the latest labels';
    status.appendChild(document.createTextNode(' '));
    status.appendChild(a);
  }

  function save(unit, value) {
    var id = unit.getAttribute('data-unit');
    var prev = seen[id];
    // Set at once, so a second choice of this unit before the first returns is not refused as stale.
    seen[id] = value;
    pending++;
    say('Saving ' + nameOf(unit, value) + '…');
    return fetch('/annotate/' + answer + '/labels' + query, {
      method: 'PUT',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
      body: JSON.stringify(bodyOf(unit, value, prev)),
    }).then(function (res) {
      if (!res.ok) {
        return res.json().catch(function () { return null; }).then(function (e) {
          var err = new Error(e && e.error ? e.error.message : 'HTTP ' + res.status);
          err.code = e && e.error ? e.error.code : null;
          throw err;
        });
      }
      pending--;
      updateProgress();
      say(pending ? 'Saving…' : 'Saved ' + nameOf(unit, value) + '.', pending ? null : 'saved');
    }).catch(function (err) {
      pending--;
      // Nothing was written: the unit still holds what this tab saw before.
      if (seen[id] === value) seen[id] = prev;
      say('Not saved (' + nameOf(unit, value) + '): ' + err.message, 'failed');
      if (err.code === 'conflict') offerReload();
    });
  }

  function choose(unit, key) {
    var r = radios(unit).filter(function (x) { return x.getAttribute('data-key') === key; })[0];
    if (!r) return false;
    r.checked = true;
    save(unit, r.value);
    return true;
  }

  form.addEventListener('change', function (e) {
    var t = e.target;
    if (t && t.type === 'radio') {
      var unit = t.closest('fieldset.unit');
      setCurrent(units.indexOf(unit));
      save(unit, t.value);
    }
  });
  form.addEventListener('focusin', function (e) {
    var unit = e.target.closest && e.target.closest('fieldset.unit');
    if (unit) setCurrent(units.indexOf(unit));
  });

  // The picture: zoom levels, kept centred on the point clicked (or on the middle for the keys).
  var view = document.getElementById('picture-view');
  var img = document.getElementById('picture-img');
  var levelText = document.getElementById('zoom-level');
  var LEVELS = [1, 1.5, 2, 3, 4];
  var level = 0;
  function zoomTo(i, fx, fy) {
    if (!view || !img) return;
    var old = LEVELS[level];
    level = Math.max(0, Math.min(LEVELS.length - 1, i));
    var cx = (view.scrollLeft + (fx === undefined ? view.clientWidth / 2 : fx)) / old;
    var cy = (view.scrollTop + (fy === undefined ? view.clientHeight / 2 : fy)) / old;
    img.style.width = LEVELS[level] * 100 + '%';
    view.scrollLeft = cx * LEVELS[level] - (fx === undefined ? view.clientWidth / 2 : fx);
    view.scrollTop = cy * LEVELS[level] - (fy === undefined ? view.clientHeight / 2 : fy);
    view.classList.toggle('max', level === LEVELS.length - 1);
    if (levelText) levelText.textContent = LEVELS[level] * 100 + '%';
  }
  if (view) {
    view.addEventListener('click', function (e) {
      var box = view.getBoundingClientRect();
      zoomTo(level === LEVELS.length - 1 ? 0 : level + 1, e.clientX - box.left, e.clientY - box.top);
    });
    document.getElementById('zoom-in').addEventListener('click', function () { zoomTo(level + 1); });
    document.getElementById('zoom-out').addEventListener('click', function () { zoomTo(level - 1); });
  }

  var CHOICE = { item: /^[1-4]$/, claim: /^[tfu]$/, binary: /^[pf]$/, numeric: /^[0-9]$/ };

  // Capture phase, so arrows move between controls instead of changing the radio choice.
  document.addEventListener('keydown', function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target;
    var tag = t && t.tagName;
    if ((tag === 'INPUT' && t.type !== 'radio') || tag === 'TEXTAREA' || tag === 'SELECT') return;
    var k = e.key;
    var unit = units[current];
    var inPicture = view && t === view;
    if (inPicture && /^Arrow/.test(k)) return; // arrows scroll the zoomed picture
    if (k === '+' || k === '=') zoomTo(level + 1);
    else if (k === '-' || k === '−') zoomTo(level - 1);
    else if (k === 'j' || k === 'ArrowDown' || k === 'ArrowRight') focusUnit(current + 1);
    else if (k === 'k' || k === 'ArrowUp' || k === 'ArrowLeft') focusUnit(current - 1);
    else if (k === 'n') window.location.href = nextUrl;
    else if (unit && CHOICE[kind(unit)] && CHOICE[kind(unit)].test(k)) {
      if (choose(unit, k)) focusUnit(current + 1);
    } else return;
    e.preventDefault();
  }, true);

  // Resume: open on the first control still without a label (the server names it).
  var first = ws.getAttribute('data-first-open');
  var at = units.findIndex(function (u) { return u.getAttribute('data-unit') === first; });
  focusUnit(at >= 0 ? at : 0);
})();

// Keyboard-first annotation (progressive enhancement of the plain form): every choice is saved at once
// and focus moves on. 1-4 verdicts, t/f/u claims, j/k or arrows to move, n for the next answer.
(function () {
  'use strict';
  var form = document.getElementById('annotate');
  if (!form) return;
  var answer = form.getAttribute('data-answer');
  var csrf = form.getAttribute('data-csrf');
  var nextUrl = form.getAttribute('data-next');
  var status = document.getElementById('save-status');
  var progress = document.getElementById('progress');
  var units = Array.prototype.slice.call(form.querySelectorAll('fieldset.unit'));
  var current = 0;

  function radios(unit) {
    return Array.prototype.slice.call(unit.querySelectorAll('input[type=radio]'));
  }

  function focusUnit(i) {
    if (units.length === 0) return;
    current = Math.max(0, Math.min(units.length - 1, i));
    units.forEach(function (u, j) {
      u.classList.toggle('current', j === current);
    });
    var rs = radios(units[current]);
    var target = rs.filter(function (r) { return r.checked; })[0] || rs[0];
    if (target) target.focus();
    units[current].scrollIntoView({ block: 'nearest' });
  }

  function updateProgress() {
    var items = units.filter(function (u) { return u.getAttribute('data-kind') === 'item'; });
    var done = items.filter(function (u) { return radios(u).some(function (r) { return r.checked; }); }).length;
    progress.textContent = done + ' of ' + items.length + ' items labelled.';
  }

  function save(unit, value) {
    var kind = unit.getAttribute('data-kind');
    var key = unit.getAttribute('data-key');
    var body = kind === 'item' ? { item: key, label: value } : { claim: Number(key), label: value };
    status.textContent = 'Saving…';
    return fetch('/annotate/' + answer + '/labels', {
      method: 'PUT',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
      body: JSON.stringify(body),
    }).then(function (res) {
      if (!res.ok) {
        return res.json().then(function (e) { throw new Error(e && e.error ? e.error.message : 'HTTP ' + res.status); });
      }
      status.textContent = 'Saved ' + (kind === 'item' ? 'item ' + key : 'claim ' + (Number(key) + 1)) + ': ' + value + '.';
      updateProgress();
    }).catch(function (err) {
      status.textContent = 'Not saved: ' + err.message;
      status.setAttribute('role', 'alert');
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
      current = units.indexOf(unit);
      save(unit, t.value);
    }
  });

  form.addEventListener('focusin', function (e) {
    var unit = e.target.closest && e.target.closest('fieldset.unit');
    if (unit) {
      current = units.indexOf(unit);
      units.forEach(function (u, j) { u.classList.toggle('current', j === current); });
    }
  });

  // Capture phase, so arrows move between units instead of changing the radio choice.
  document.addEventListener('keydown', function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var tag = e.target && e.target.tagName;
    if (tag === 'INPUT' && e.target.type !== 'radio') return;
    if (tag === 'TEXTAREA' || tag === 'SELECT') return;
    var k = e.key;
    var unit = units[current];
    if (k === 'j' || k === 'ArrowDown' || k === 'ArrowRight') {
      focusUnit(current + 1);
    } else if (k === 'k' || k === 'ArrowUp' || k === 'ArrowLeft') {
      focusUnit(current - 1);
    } else if (k === 'n') {
      window.location.href = nextUrl;
    } else if (unit && ((unit.getAttribute('data-kind') === 'item' && /^[1-4]$/.test(k)) || (unit.getAttribute('data-kind') === 'claim' && /^[tfu]$/.test(k)))) {
      if (choose(unit, k)) focusUnit(current + 1);
    } else {
      return;
    }
    e.preventDefault();
  }, true);

  focusUnit(0);
})();

// Village of Belleville kiosk: the idle timer and the print button. The
// pages work without this script; with it, a kiosk left alone returns to the
// start screen after a warning the resident can dismiss. Once a payment
// form is submitted the timer stops, so it never interrupts a payment.
(function () {
  "use strict";

  var print = document.querySelector("[data-print]");
  if (print && window.print) {
    print.hidden = false;
    print.addEventListener("click", function () { window.print(); });
  }

  // The on-screen number pad types into its input and counts as activity
  // (it sends an input event, which the idle timer listens to). The first
  // digit or decimal mark replaces the amount the page filled in; a second
  // decimal mark is ignored, and so is a third digit after it.
  Array.prototype.forEach.call(document.querySelectorAll("[data-keypad]"), function (pad) {
    var input = document.getElementById(pad.getAttribute("data-keypad"));
    if (!input) {
      return;
    }
    var dot = pad.querySelector("[data-decimal]");
    var mark = dot ? dot.getAttribute("data-key") : ".";
    var fresh = input.value !== "";
    input.addEventListener("keydown", function () { fresh = false; });
    pad.hidden = false;
    pad.addEventListener("click", function (e) {
      var key = e.target.closest ? e.target.closest("[data-key]") : null;
      if (!key) {
        return;
      }
      var k = key.getAttribute("data-key");
      var v = input.value;
      if (k === "back") {
        v = v.slice(0, -1);
      } else if (k === "clear") {
        v = "";
      } else {
        if (fresh) {
          v = "";
        }
        var at = v.indexOf(mark);
        if (k === mark) {
          if (at < 0) {
            v += v === "" ? "0" + mark : mark;
          }
        } else if (at < 0 || v.length - at - 1 < 2) {
          v += k;
        }
      }
      fresh = false;
      input.value = v;
      input.dispatchEvent(new Event("input", { bubbles: true }));
    });
  });

  // Once Pay is pressed the screen says what to do at the card reader
  // while the page waits for the terminal's answer, and the buttons stop
  // taking taps. A confirmation page restored by Back after paying is
  // loaded again: the server answers it with the receipt, never a live
  // pay button over a stale balance (issue #20, items 6 and 7).
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form || !form.hasAttribute("data-commit")) {
      return;
    }
    var wait = form.querySelector("[data-processing]");
    if (wait) {
      wait.hidden = false;
      if (wait.scrollIntoView) {
        wait.scrollIntoView({ block: "center" });
      }
    }
    form.setAttribute("data-submitted", "");
    window.setTimeout(function () {
      Array.prototype.forEach.call(form.querySelectorAll("button, a.button"), function (b) {
        b.setAttribute("aria-disabled", "true");
        if (b.tagName === "BUTTON") {
          b.disabled = true;
        }
      });
    }, 0);
  });
  window.addEventListener("pageshow", function (e) {
    if (e.persisted && document.querySelector("form[data-commit]")) {
      window.location.reload();
    }
  });
  // A confirmation page shown in the answer to a POST (a charge that did
  // not go through, or a status letter's request) would be posted again
  // by Back, or shown as the browser's resubmission error. Its history
  // entry becomes the page's own address (the language switch's, without
  // the language): a confirmation page the server answers with the
  // receipt once the payment is made, or the letter's form.
  if (document.querySelector("form[data-commit]") && !/\/confirm$/.test(window.location.pathname) && window.history.replaceState) {
    var other = document.querySelector(".langs a[hreflang]");
    if (other) {
      var self = new URL(other.href, window.location.href);
      self.searchParams.delete("lang");
      window.history.replaceState(null, "", self.pathname + self.search);
    }
  }

  var body = document.body;
  var limit = parseInt(body.getAttribute("data-idle-seconds") || "0", 10);
  var warnAt = parseInt(body.getAttribute("data-idle-warn") || "0", 10);
  var target = body.getAttribute("data-idle-url") || "/";
  var box = document.getElementById("idle-warning");
  var count = document.getElementById("idle-count");
  var stay = document.getElementById("idle-stay");
  if (!limit || !box || !count) {
    return;
  }

  var last = Date.now();
  var busy = false;

  function activity() {
    last = Date.now();
    if (!box.hidden) {
      box.hidden = true;
    }
  }
  ["pointerdown", "keydown", "touchstart", "input", "wheel"].forEach(function (type) {
    document.addEventListener(type, activity, { passive: true, capture: true });
  });
  if (stay) {
    stay.addEventListener("click", activity);
  }
  document.addEventListener("submit", function (e) {
    if (e.target && e.target.hasAttribute("data-commit")) {
      busy = true;
      box.hidden = true;
    }
  });
  // A page restored from the back/forward cache starts a fresh wait.
  window.addEventListener("pageshow", function () { busy = false; activity(); });

  setInterval(function () {
    if (busy) {
      return;
    }
    var left = limit - Math.floor((Date.now() - last) / 1000);
    if (left <= 0) {
      busy = true;
      window.location.assign(target);
      return;
    }
    if (left <= warnAt) {
      count.textContent = String(left);
      if (box.hidden) {
        box.hidden = false;
        if (stay) {
          stay.focus();
        }
      }
    }
  }, 1000);
})();

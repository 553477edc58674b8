// Village of Belleville kiosk: the idle timer, the print button, the
// on-screen number pad and keyboard, a cart's live total. The pages work without this script
// (a physical keyboard types into every field); with it, a kiosk left alone returns to the
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

  // A cart's total follows its ticks: the sum of the boxes ticked, each
  // carrying its bill's amount in cents (data-cents). It is written as
  // i18n.Printer.Money writes amounts in both languages, "$1,234.50".
  // Without the script the total served is that of the ticks the page was
  // made with, and the confirmation shows the one charged.
  var money = function (cents) {
    var whole = String(Math.floor(cents / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    var frac = String(cents % 100);
    return "$" + whole + "." + (frac.length < 2 ? "0" + frac : frac);
  };
  Array.prototype.forEach.call(document.querySelectorAll("[data-cart-total]"), function (total) {
    var form = total.closest("form");
    if (!form) {
      return;
    }
    var sum = function () {
      var cents = 0;
      Array.prototype.forEach.call(form.querySelectorAll("input[data-cents]"), function (box) {
        if (box.checked) {
          cents += parseInt(box.getAttribute("data-cents"), 10) || 0;
        }
      });
      total.textContent = money(cents);
    };
    form.addEventListener("change", sum);
    // A page restored by Back keeps the ticks the resident left.
    window.addEventListener("pageshow", sum);
    sum();
  });

  // The on-screen keyboard types into the text fields marked data-osk:
  // the kiosk's touch screen has no keyboard. It opens at the bottom of the
  // screen when such a field is touched or gets the focus, and the page
  // gets room below so the field stays in sight above it. A key types at
  // the caret (replacing a selection) and sends an input event, which the
  // idle timer counts as activity; the shift key capitalises the next
  // letter; enter moves to the next marked field of the form or, from the
  // last, sends the form as its first submit button would. The fields keep
  // working with a physical keyboard; a key pressed on one closes this.
  var board = document.querySelector("[data-osk-board]");
  var fields = document.querySelectorAll("input[data-osk]");
  if (board && fields.length) {
    var field = null;
    var shift = false;
    var shiftKey = board.querySelector('[data-osk-key="shift"]');
    var setShift = function (on) {
      shift = on;
      board.classList.toggle("osk-shifted", on);
      if (shiftKey) {
        shiftKey.setAttribute("aria-pressed", on ? "true" : "false");
      }
    };
    var open = function (f) {
      field = f;
      if (board.hidden) {
        board.hidden = false;
        document.documentElement.classList.add("osk-open");
        document.documentElement.style.setProperty("--osk-height", board.offsetHeight + "px");
      }
      // The field, and the button beside it (a row's Send), must show
      // above the keyboard and above every bar of actions fixed at the
      // bottom of the screen, the form's or the page's (a receipt's bar
      // is outside its e-mail form).
      var r = (f.closest && f.closest(".row") || f).getBoundingClientRect();
      var room = window.innerHeight - board.offsetHeight;
      Array.prototype.forEach.call(document.querySelectorAll(".actions-sticky"), function (bar) {
        if (getComputedStyle(bar).position === "fixed" && bar.offsetHeight > 0) {
          room = Math.min(room, bar.getBoundingClientRect().top);
        }
      });
      if (r.bottom > room - 16 || r.top < 0) {
        window.scrollBy(0, r.bottom - room + 16 + (r.top < 0 ? r.top : 0));
      }
    };
    var focused = function (f) {
      // Typing goes after what the field holds, not before it.
      if (f.selectionStart === 0 && f.selectionEnd === 0) {
        f.setSelectionRange(f.value.length, f.value.length);
      }
      open(f);
    };
    var close = function () {
      board.hidden = true;
      document.documentElement.classList.remove("osk-open");
      setShift(false);
    };
    Array.prototype.forEach.call(fields, function (f) {
      // No system keyboard on top of this one (where a system has one).
      f.setAttribute("inputmode", "none");
      f.addEventListener("focus", function () { focused(f); });
      // On click, not on pointerdown: the keyboard must not appear under
      // the finger before the tap ends, or the tap would land on a key.
      f.addEventListener("click", function () { open(f); });
      // Someone typing on a physical keyboard needs no keyboard on screen
      // covering the page.
      f.addEventListener("keydown", function (e) {
        if (e.key !== "Tab" && e.key !== "Shift") {
          close();
        }
      });
    });
    // A field focused before this script ran (autofocus) opens it now.
    if (document.activeElement && document.activeElement.hasAttribute("data-osk")) {
      focused(document.activeElement);
    }
    // A screen turned or resized changes the keyboard's height.
    window.addEventListener("resize", function () {
      if (!board.hidden && field) {
        document.documentElement.style.setProperty("--osk-height", board.offsetHeight + "px");
        open(field);
      }
    });
    // A key press keeps the focus (and the caret) in the field.
    board.addEventListener("mousedown", function (e) { e.preventDefault(); });
    board.addEventListener("click", function (e) {
      var key = e.target.closest ? e.target.closest("[data-osk-key]") : null;
      if (!key || !field) {
        return;
      }
      var k = key.getAttribute("data-osk-key");
      if (k === "shift") {
        setShift(!shift);
        return;
      }
      if (k === "hide") {
        close();
        return;
      }
      if (k === "enter") {
        var form = field.form;
        var list = form ? Array.prototype.filter.call(form.elements, function (el) { return el.hasAttribute("data-osk"); }) : [];
        var next = list[list.indexOf(field) + 1];
        if (next) {
          next.focus();
          open(next);
        } else if (form) {
          close();
          var send = form.querySelector('[type="submit"]');
          if (form.requestSubmit) {
            form.requestSubmit(send || undefined);
          } else if (send) {
            send.click();
          }
        }
        return;
      }
      var v = field.value;
      var start = typeof field.selectionStart === "number" ? field.selectionStart : v.length;
      var end = typeof field.selectionEnd === "number" ? field.selectionEnd : v.length;
      if (k === "back") {
        if (start === end && start > 0) {
          start -= 1;
        }
        k = "";
      } else if (shift) {
        k = k.toUpperCase();
        setShift(false);
      }
      var max = field.maxLength > 0 ? field.maxLength : Infinity;
      if (v.length - (end - start) + k.length > max) {
        return;
      }
      field.value = v.slice(0, start) + k + v.slice(end);
      var at = start + k.length;
      field.focus({ preventScroll: true });
      field.setSelectionRange(at, at);
      field.dispatchEvent(new Event("input", { bubbles: true }));
    });
  }

  // Once Pay is pressed the screen says what to do at the card reader
  // while the page waits for the terminal's answer, and the buttons stop
  // taking taps. A confirmation page restored by Back after paying is
  // loaded again: the server answers it with the receipt, never a live
  // pay button over a stale balance.
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

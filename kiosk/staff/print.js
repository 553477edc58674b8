// The clerk's office's only script: a button marked data-print prints the
// page (the staff pages' CSP allows scripts from the appliance alone).
document.addEventListener("click", function (e) {
  var b = e.target.closest("[data-print]");
  if (b) { e.preventDefault(); window.print(); }
});

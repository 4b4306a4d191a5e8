/* The table's websocket as the htmx ws extension holds it (both games): a
   round's action (BET, DEAL, a decision) goes as one JSON message of the
   form's fields, its button held until the answer comes, the socket closes,
   or ten seconds pass. The socket's state is on `marker.dataset.ws`
   ("open" / "closed"), which the pages and the tests read. */

const HOLD_MS = 10000;

export function tableSocket(root, marker) {
  let socket = null;
  let held = null;
  let timer = null;

  function release() {
    if (held) held.disabled = false;
    held = null;
    if (timer) window.clearTimeout(timer);
    timer = null;
  }

  root.addEventListener("htmx:wsOpen", function (evt) {
    socket = (evt.detail && evt.detail.socketWrapper) || null;
    marker.dataset.ws = "open";
  });
  root.addEventListener("htmx:wsClose", function () {
    socket = null;
    release();
    marker.dataset.ws = "closed";
  });

  return {
    open: function () { return socket !== null && marker.dataset.ws === "open"; },
    waiting: function () { return held !== null; },
    release: release,
    // `fields`: [name, value] pairs of the form htmx would post.
    send: function (action, fields, button, elt) {
      const message = { action: action };
      for (const pair of fields) {
        if (pair[0] !== "csrfmiddlewaretoken") message[pair[0]] = pair[1];
      }
      if (button) {
        held = button;
        button.disabled = true;
        timer = window.setTimeout(release, HOLD_MS);
      }
      socket.send(JSON.stringify(message), elt || button);
    },
  };
}

// Starts Swagger UI on /docs from the vendored bundle: a file, since the page's
// Content-Security-Policy allows no inline script.
"use strict";

window.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("swagger-ui");
  window.ui = window.SwaggerUIBundle({
    url: root.dataset.openapi,
    domNode: root,
    deepLinking: true,
    validatorUrl: null, // never send the schema to another site
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});

// Starts Swagger UI on the page /schema serves (a file, not an inline script: the page runs
// under a Content-Security-Policy without 'unsafe-inline').
window.addEventListener("load", () => {
  const root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.spec,
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});

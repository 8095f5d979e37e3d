// Renders the server's own /openapi.yaml with the embedded Swagger UI. It lives in a file of its own, not in
// the page, so the page's CSP needs no inline script. Relative URLs keep it working behind a path prefix.
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "openapi.yaml",
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    // Nothing leaves the page: no validator badge (it would call validator.swagger.io).
    validatorUrl: null,
  });
});

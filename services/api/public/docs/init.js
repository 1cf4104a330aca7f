// Renders the API reference from the API's own OpenAPI document. A separate file (not an inline
// script) so the page's Content-Security-Policy can allow scripts from 'self' only.
window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  // A reference page: requests are not sent from the browser (the CSP allows no other origin,
  // and tokens do not belong in a web page).
  supportedSubmitMethods: [],
  defaultModelsExpandDepth: 0,
  // Tags start collapsed, with a filter box: rendering every one of the ~130 operations on load
  // left Swagger UI 5 showing the first tag and nothing after it (a reader opens a tag to see its operations).
  docExpansion: 'none',
  filter: true,
});

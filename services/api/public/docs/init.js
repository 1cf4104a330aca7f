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
});

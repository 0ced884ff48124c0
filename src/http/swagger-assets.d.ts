// Swagger UI's files, imported `with { type: 'file' }`: the import is the file's path.
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const path: string;
  export default path;
}
declare module 'swagger-ui-dist/swagger-ui-standalone-preset.js' {
  const path: string;
  export default path;
}
declare module 'swagger-ui-dist/swagger-ui.css' {
  const path: string;
  export default path;
}

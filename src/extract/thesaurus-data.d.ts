// The compiled thesaurus, imported `with { type: 'text' }`: the import is the file's text (JSON),
// parsed on first use rather than when the server starts.
declare module '*.data.txt' {
  const text: string;
  export default text;
}

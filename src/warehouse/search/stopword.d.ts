// The stop-word lists package ships no types; only the English list is read.
declare module 'stopword' {
  export const eng: string[];
}

/** Types of import-graph.js (plain JavaScript, loaded by eslint.config.js under Node without a TypeScript step). */
export declare function resolveImport(fromFile: string, specifier: string): string | undefined;
export declare function importsOf(
  file: string,
  text?: string,
): { specifier: string; file: string | undefined; pos: number }[];
export declare function edgesOf(file: string): string[];
export declare function pathBack(start: string, target: string): string[] | undefined;
export declare function codeFiles(dir: string): string[];
export declare function cycles(files: string[]): string[][];

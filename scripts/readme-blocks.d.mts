/** Types of readme-blocks.mjs (see its docstring). */
export interface ReadmeBlock {
  line: number;
  lang: string;
  code: string;
  kind: 'shell' | 'start' | 'skip' | 'file' | 'text';
  env?: Record<string, string>;
  path?: string;
  reason?: string;
}
export function readmeBlocks(markdown: string): ReadmeBlock[];

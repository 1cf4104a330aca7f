/** Types of readme-blocks.mjs (see its docstrings). */
export interface ReadmeStep {
  code: string;
  shown?: string[];
}
export interface ReadmeBlock {
  line: number;
  lang: string;
  code: string;
  kind: 'shell' | 'start' | 'skip' | 'file' | 'text' | 'output';
  env?: Record<string, string>;
  path?: string;
  reason?: string;
  steps?: ReadmeStep[];
  mode?: 'exact' | 'like';
}
export function readmeBlocks(markdown: string): ReadmeBlock[];
export function shellSteps(code: string): ReadmeStep[];
export function onScreen(text: string): string[];
export function matchesShown(shown: string[], actual: string, mode: 'exact' | 'like'): boolean;

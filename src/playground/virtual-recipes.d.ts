// PLACEHOLDER owned by helper h28build (the esbuild plugin serving `virtual:recipes`).
declare module 'virtual:recipes' {
  export const RECIPES: readonly {
    name: string;
    title: string;
    description: string;
    operation: string | undefined;
    modrules: string;
    resource: string;
    refs?: string | undefined;
    old?: string | undefined;
  }[];
}

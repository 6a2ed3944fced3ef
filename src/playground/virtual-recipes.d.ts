/**
 * The recipes bundled into the page at build time (scripts/playground/recipes-plugin.ts reads
 * samples/recipes/<name>/): recipe.yaml's title, description and operation, and the YAML text of
 * the recipe's other files.
 */
declare module 'virtual:recipes' {
  export interface Recipe {
    /** The recipe's directory name. */
    readonly name: string;
    readonly title: string;
    readonly description: string;
    /** The catalogue's group (recipe.yaml's `category`). */
    readonly category: string;
    /** CREATE, UPDATE or DELETE (CREATE when recipe.yaml names none). */
    readonly operation: string;
    /** modrules.yaml */
    readonly modrules: string;
    /** resource.yaml */
    readonly resource: string;
    /** refs.yaml: `{namespace?, node?}` manifests for the syntheticRefs. */
    readonly refs?: string;
    /** old.yaml: the old object of an UPDATE or DELETE. */
    readonly old?: string;
    /** cluster.yaml: the objects (and ExternalDataAnswers) the rules' lookups read. */
    readonly cluster?: string;
  }
  export const RECIPES: readonly Recipe[];
}

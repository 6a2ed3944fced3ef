/**
 * Generated template cases for the comparison with Go's text/template + Sprig (see
 * compare-templates.ts): every way a missing or nil value can arise in a KubeMod template
 * ("subjects"), put through every way a template can use a value ("uses"): printing, variables,
 * pipelines, control structures and each Sprig/builtin function in argument positions.
 */

export interface TemplateCase {
  readonly template: string;
  /** The subject put into the template (for grouping the report). */
  readonly subject: string;
  /** The use the subject was put through (`X` stands for the subject). */
  readonly use: string;
  /** Whether the subject evaluates to a missing or nil value. */
  readonly nil: boolean;
  /** Part of the function sweep (rather than one of the hand-picked uses). */
  readonly sweep: boolean;
  /** Written to the fixture table by --write-fixture. */
  readonly fixture: boolean;
  /** `.SelectedItem`; undefined when the operation has no select. */
  readonly selectedItem?: unknown;
}

/** The object the templates see as `.Target`. */
export const TARGET = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web',
    labels: { app: 'prod', tier: 'back' },
    nothing: null,
    empty: {},
    count: 0,
  },
  spec: {
    list: ['a', null, 'c'],
    nums: [1, 2.5],
    emptyList: [],
    replicas: 3,
    flag: true,
    text: 'hello',
    maps: [{ name: 'x', value: null }, { name: 'y' }],
  },
};

export const NAMESPACE = 'prod';

interface Subject {
  /** An operand: a field, a variable or a parenthesised pipeline. */
  readonly expr: string;
  /** Declarations the subject needs before the use (variables). */
  readonly prefix?: string;
  readonly nil: boolean;
  /** One of the subjects written to the fixture table (one for each way to reach a nil). */
  readonly fixture?: boolean;
}

/** Every way a template meets a missing or nil value, plus present values to compare against. */
export const SUBJECTS: readonly Subject[] = [
  // missing map keys
  { expr: '.Target.metadata.missing', nil: true, fixture: true },
  { expr: '.Target.metadata.missing.deeper', nil: true, fixture: true },
  { expr: '.Target.metadata.labels.missing', nil: true },
  { expr: '(index .Target.metadata.labels "missing")', nil: true, fixture: true },
  { expr: '(index .Target "metadata" "labels" "missing")', nil: true },
  { expr: '(.Target.metadata.missing)', nil: true },
  { expr: '$m', prefix: '{{ $m := .Target.metadata.missing }}', nil: true, fixture: true },
  { expr: '$i', prefix: '{{ $i := index .Target.metadata.labels "missing" }}', nil: true },
  {
    expr: '$a',
    prefix: '{{ $a := "x" }}{{ $a = .Target.metadata.missing }}',
    nil: true,
    fixture: true,
  },
  // JSON null values
  { expr: '.Target.metadata.nothing', nil: true, fixture: true },
  { expr: '(.Target.metadata.nothing)', nil: true, fixture: true },
  { expr: '(index .Target.metadata "nothing")', nil: true },
  { expr: '(index .Target.spec.list 1)', nil: true, fixture: true },
  { expr: '(index (index .Target.spec.maps 0) "value")', nil: true },
  { expr: '$n', prefix: '{{ $n := .Target.metadata.nothing }}', nil: true, fixture: true },
  // nil from functions and the context
  { expr: '.SelectedItem', nil: true, fixture: true },
  { expr: '.SelectedItem.deeper', nil: true },
  { expr: '(first .Target.spec.emptyList)', nil: true, fixture: true },
  { expr: '(last .Target.spec.emptyList)', nil: true },
  { expr: '(coalesce .Target.metadata.missing)', nil: true },
  { expr: '(get .Target.metadata.labels "missing")', nil: false },
  { expr: '(fromJson "null")', nil: true },
  { expr: '(and .Target.metadata.missing "x")', nil: true },
  { expr: '(or .Target.metadata.nothing)', nil: true },
  // present values
  { expr: '.Target.metadata.labels.app', nil: false },
  { expr: '.Target.spec.replicas', nil: false },
  { expr: '.Target.metadata.count', nil: false },
  { expr: '.Target.metadata.labels', nil: false },
  { expr: '.Target.metadata.empty', nil: false },
  { expr: '.Target.spec.list', nil: false },
  { expr: '.Target.spec.maps', nil: false },
  { expr: '.Target.spec.emptyList', nil: false },
  { expr: '.Target.spec.flag', nil: false },
];

/** Ways of using a value other than calling a function on it; `X` is the subject. */
const USES: readonly string[] = [
  '{{ X }}',
  '[{{ X }}]',
  '{{ X | printf "%v" }}',
  '{{ printf "%v" X }}',
  '{{ printf "%s" X }}',
  '{{ printf "%q" X }}',
  '{{ printf "%d" X }}',
  '{{ printf "%T" X }}',
  '{{ printf "%v-%v" X X }}',
  '{{ print X }}',
  '{{ print "a" X "b" }}',
  '{{ println X }}',
  '{{ X | quote }}',
  '{{ X | upper }}',
  '{{ X | toString }}',
  '{{ X | default "d" }}',
  '{{ X | toJson }}',
  '{{ X | len }}',
  '{{ X | quote | upper }}',
  '{{ X | toString | upper }}',
  '{{ $v := X }}{{ $v }}',
  '{{ $v := X }}{{ $v | quote }}',
  '{{ $v := X }}{{ printf "%v" $v }}',
  '{{ $v := "z" }}{{ $v = X }}{{ $v }}',
  '{{ if X }}yes{{ else }}no{{ end }}',
  '{{ with X }}with:{{ . }}{{ else }}none{{ end }}',
  '{{ range X }}<{{ . }}>{{ else }}empty{{ end }}',
  '{{ range $k, $e := X }}<{{ $k }}={{ $e }}>{{ end }}',
  '{{ if and X true }}yes{{ else }}no{{ end }}',
  '{{ and X "right" }}',
  '{{ or X "right" }}',
  '{{ and "left" X }}',
  '{{ or "" X }}',
  '{{ not X }}',
  '{{ eq X "prod" }}',
  '{{ eq X nil }}',
  '{{ eq X 3 }}',
  '{{ ne X "prod" }}',
  '{{ eq "prod" X }}',
  '{{ lt X 1 }}',
  '{{ (X).deeper }}',
  '{{ list X }}',
  '{{ list X "z" }}',
  '{{ list "z" X | toJson }}',
  '{{ dict "k" X }}',
  '{{ dict "k" X | toJson }}',
  '{{ toJson (list X) }}',
  '{{ index (list X) 0 }}',
  '{{ index (dict "k" X) "k" }}',
  '{{ get (dict "k" X) "k" }}',
  '{{ cat "a" X "b" }}',
  '{{ join "," (list "a" X) }}',
  '{{ ternary "yes" "no" (empty X) }}',
  '{{ coalesce X "c" }}',
  '{{ default "d" X }}',
  '{{ typeOf X }}',
  '{{ kindOf X }}',
  '{{ kindIs "invalid" X }}',
  '{{ typeIs "<nil>" X }}',
  '{{ deepEqual X nil }}',
  '{{ empty X }}',
  '{{ len X }}',
  '{{ index X "app" }}',
  '{{ index X 0 }}',
  '{{ index X }}',
  '{{ hasKey X "app" }}',
  '{{ get X "app" }}',
  '{{ keys X }}',
  '{{ X | keys }}',
  '{{ values X }}',
  '{{ pick X "app" }}',
  '{{ merge X (dict "a" 1) }}',
  '{{ set X "a" 1 }}',
  '{{ deepCopy X }}',
  '{{ ternary "y" "n" X }}',
  '{{ html X }}',
  '{{ js "a" X }}',
  '{{ urlquery X }}',
  '{{ join "," X }}',
  '{{ sortAlpha X }}',
  '{{ toStrings X }}',
  '{{ first X }}',
];

/** The Sprig (v3.2.2) and builtin functions kubemod-ts offers, with the argument shapes to try. */
const FUNCTIONS: readonly string[] = [
  'abbrev abbrevboth add add1 add1f addf atoi b64dec b64enc biggest camelcase cat ceil coalesce',
  'compact concat contains deepCopy deepEqual default dict dig div divf empty first float64 floor',
  'fromJson get has hasKey hasPrefix hasSuffix indent initial initials int int64 join keys kebabcase',
  'kindIs kindOf last lower max maxf merge mergeOverwrite min minf mod mul mulf mustFromJson',
  'mustToJson mustToPrettyJson nindent nospace omit pick plural prepend push quote regexFind',
  'regexFindAll regexMatch regexQuoteMeta regexReplaceAll regexReplaceAllLiteral regexSplit repeat',
  'replace rest reverse round set sha1sum sha256sum slice snakecase sortAlpha split splitList splitn',
  'squote sub subf substr ternary title toJson toPrettyJson toRawJson toString toStrings trim trimAll',
  'trimPrefix trimSuffix trimall trunc tuple typeIs typeIsLike typeOf uniq unset until untilStep',
  'untitle upper values without wrap append',
  'and or not len index print println printf eq ne lt le gt ge html js urlquery',
]
  .join(' ')
  .split(' ');

/** Argument shapes for the function sweep: `X` is the subject, `F` the function. */
const CALL_SHAPES: readonly string[] = [
  '{{ F X }}',
  '{{ X | F }}',
  '{{ F X "a" }}',
  '{{ F "a" X }}',
  '{{ F X 1 }}',
  '{{ F 1 X }}',
  '{{ F "a" "b" X }}',
  '{{ F "a" X "b" }}',
  '{{ F (list "a") X }}',
  '{{ F X (list "a") }}',
  '{{ F (dict "a" 1) X }}',
  '{{ F X (dict "a" 1) }}',
];

export function generateCases(): TemplateCase[] {
  const cases: TemplateCase[] = [];
  const add = (subject: Subject, use: string, sweep: boolean): void => {
    cases.push({
      template: `${subject.prefix ?? ''}${use.replaceAll('X', subject.expr)}`,
      subject: subject.prefix === undefined ? subject.expr : `${subject.prefix}${subject.expr}`,
      use,
      nil: subject.nil,
      sweep,
      fixture: subject.fixture === true && !sweep,
    });
  };
  for (const subject of SUBJECTS) {
    for (const use of USES) add(subject, use, false);
    for (const fn of FUNCTIONS)
      for (const shape of CALL_SHAPES) add(subject, shape.replace('F', fn), true);
  }
  // .SelectedItem holding a JSON null (a select that found a null value).
  for (const use of USES) {
    cases.push({
      template: use.replaceAll('X', '.SelectedItem'),
      subject: '.SelectedItem (null)',
      use,
      nil: true,
      sweep: false,
      fixture: false,
      selectedItem: null,
    });
  }
  return cases;
}

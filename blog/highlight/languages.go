package highlight

import "strings"

// kind picks a language's lexer.
type kind int

const (
	kindGeneric kind = iota // code: comments, strings, numbers, words
	kindMarkup              // HTML and XML: tags, attributes, comments
	kindDiff                // a unified diff: whole lines added or deleted
)

// language tells the generic lexer what a language's tokens look like.
type language struct {
	kind          kind
	lineComments  []string
	blockComments [][2]string
	// wordComment: a line comment starts only where a word may (the
	// shell's and YAML's "#": "a#b" is one word).
	wordComment bool
	quotes      string // string delimiters, with backslash escapes
	rawQuotes   string // delimiters without escapes (Go's `, the shell's ')
	multiline   string // delimiters whose strings may span lines
	triple      bool   // Python's """ and '''
	charQuote   bool   // Rust: ' opens a character only when one closes it ('a is a lifetime)
	keywords    set
	types       set
	fold        bool   // keywords in any case (SQL)
	identStart  string // bytes besides letters and _ that start a name when a letter follows
	identExtra  string // bytes besides letters, digits and _ inside a name
	atClass     string // the class of a name starting with @ (CSS at-rules, Java annotations)
	capsTypes   bool   // a capitalised name is a type (Java, Rust, TypeScript)
	funcs       bool   // a name followed by ( is a function
	macroBang   bool   // Rust: a name followed by ! is a macro, coloured as a function
	keys        bool   // a name or string followed by : is a key, coloured as a type
	vars        bool   // the shell's $name, ${…} and $1, coloured as types
	preproc     bool   // C: # at a line's start begins a directive
	hexColor    bool   // CSS: #fff is a number
}

type set map[string]bool

func words(s string) set {
	m := set{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// aliases maps every name a fenced block may use to its language.
var aliases = map[string]string{
	"go": "go", "golang": "go",
	"javascript": "js", "js": "js", "jsx": "js", "mjs": "js", "cjs": "js", "node": "js",
	"typescript": "ts", "ts": "ts", "tsx": "ts", "mts": "ts",
	"python": "python", "py": "python", "python3": "python", "py3": "python",
	"bash": "bash", "sh": "bash", "shell": "bash", "zsh": "bash", "ksh": "bash", "shellscript": "bash",
	"json": "json", "jsonc": "json", "json5": "json",
	"html": "html", "htm": "html", "xhtml": "html", "xml": "html", "svg": "html", "rss": "html", "atom": "html",
	"css": "css", "scss": "css", "less": "css",
	"sql": "sql", "postgresql": "sql", "postgres": "sql", "psql": "sql", "mysql": "sql", "sqlite": "sql", "plpgsql": "sql",
	"yaml": "yaml", "yml": "yaml",
	"rust": "rust", "rs": "rust",
	"c": "c", "h": "c", "cpp": "c", "c++": "c", "cc": "c", "cxx": "c", "hpp": "c", "hh": "c", "objc": "c",
	"java": "java",
	"diff": "diff", "patch": "diff", "udiff": "diff",
}

const cLike = "/*"

var languages = map[string]*language{
	"go": {
		lineComments: []string{"//"}, blockComments: [][2]string{{cLike, "*/"}},
		quotes: `"'`, rawQuotes: "`", multiline: "`", funcs: true,
		keywords: words(`break case chan const continue default defer else fallthrough for func go goto if import
			interface map package range return select struct switch type var true false nil iota`),
		types: words(`bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string
			uint uint8 uint16 uint32 uint64 uintptr any comparable append cap clear close complex copy delete
			imag len make max min new panic print println real recover`),
	},
	"js": {
		lineComments: []string{"//"}, blockComments: [][2]string{{cLike, "*/"}},
		quotes: "\"'`", multiline: "`", identStart: "$@", identExtra: "$", funcs: true, atClass: Function,
		keywords: words(jsKeywords),
		types:    words(jsTypes),
	},
	"ts": {
		lineComments: []string{"//"}, blockComments: [][2]string{{cLike, "*/"}},
		quotes: "\"'`", multiline: "`", identStart: "$@", identExtra: "$", funcs: true, atClass: Function, capsTypes: true,
		keywords: words(jsKeywords + ` interface type enum implements namespace declare abstract readonly private
			protected public keyof infer as is satisfies override`),
		types: words(jsTypes + ` string number boolean any unknown never void object bigint symbol Record Partial
			Readonly Required Pick Omit`),
	},
	"python": {
		lineComments: []string{"#"}, quotes: `"'`, triple: true, funcs: true, identStart: "@", atClass: Function,
		keywords: words(`False None True and as assert async await break class continue def del elif else except
			finally for from global if import in is lambda nonlocal not or pass raise return try while with
			yield match case`),
		types: words(`int float str bool list dict set tuple bytes bytearray object type len print range
			enumerate zip map filter open isinstance issubclass super self cls sorted reversed min max sum any
			all iter next repr Exception ValueError TypeError KeyError IndexError RuntimeError`),
	},
	"bash": {
		lineComments: []string{"#"}, wordComment: true, quotes: `"`, rawQuotes: `'`, multiline: `"'`,
		identExtra: "-", vars: true,
		keywords: words(`if then else elif fi case esac for while until do done in function select time return
			exit break continue local export readonly declare typeset unset shift source alias`),
		types: words(`echo printf cd pwd read test eval exec trap true false set kill wait cat grep sed awk
			curl sudo`),
	},
	"json": {
		lineComments: []string{"//"}, blockComments: [][2]string{{cLike, "*/"}},
		quotes: `"`, rawQuotes: `'`, keys: true,
		keywords: words(`true false null`),
	},
	"html": {kind: kindMarkup},
	"css": {
		blockComments: [][2]string{{cLike, "*/"}}, lineComments: []string{"//"},
		quotes: `"'`, identStart: "-@$", identExtra: "-", atClass: Keyword, keys: true, funcs: true, hexColor: true,
		keywords: words(`important auto none inherit initial unset revert and not only from to`),
	},
	"sql": {
		lineComments: []string{"--"}, blockComments: [][2]string{{cLike, "*/"}},
		rawQuotes: "'\"`", multiline: "'", fold: true,
		keywords: words(`select from where and or not insert into values update set delete create table index
			view drop alter add column primary key foreign references join left right inner outer full cross on
			as group by order having limit offset union all distinct case when then else end is null like ilike
			in between exists returning with recursive begin commit rollback transaction default unique check
			constraint if cascade asc desc true false conflict do nothing replace trigger function returns
			language using explain analyze vacuum pragma grant revoke to`),
		types: words(`integer int bigint smallint text varchar char character boolean bool real double
			precision numeric decimal date time timestamp timestamptz interval blob serial bigserial json jsonb
			uuid bytea count sum avg min max coalesce now lower upper length substr`),
	},
	"yaml": {
		lineComments: []string{"#"}, wordComment: true, quotes: `"`, rawQuotes: `'`,
		identExtra: "-.", keys: true,
		keywords: words(`true false yes no on off null True False Yes No On Off Null TRUE FALSE NULL`),
	},
	"rust": {
		lineComments: []string{"//"}, blockComments: [][2]string{{cLike, "*/"}},
		quotes: `"`, multiline: `"`, charQuote: true, funcs: true, macroBang: true, capsTypes: true,
		keywords: words(`as async await break const continue crate dyn else enum extern false fn for if impl in
			let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use
			where while`),
		types: words(`i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str String Vec
			Option Result Box Some None Ok Err`),
	},
	"c": {
		lineComments: []string{"//"}, blockComments: [][2]string{{cLike, "*/"}},
		quotes: `"'`, funcs: true, preproc: true,
		keywords: words(`auto break case const continue default do else enum extern for goto if inline register
			restrict return sizeof static struct switch typedef union volatile while class namespace template
			typename public private protected virtual override new delete this throw try catch using operator
			friend constexpr nullptr true false noexcept decltype explicit mutable static_cast dynamic_cast
			const_cast reinterpret_cast NULL`),
		types: words(`int char float double long short unsigned signed void bool size_t ssize_t int8_t int16_t
			int32_t int64_t uint8_t uint16_t uint32_t uint64_t FILE std string vector map`),
	},
	"java": {
		lineComments: []string{"//"}, blockComments: [][2]string{{cLike, "*/"}},
		quotes: `"'`, funcs: true, capsTypes: true, identStart: "@", atClass: Type,
		keywords: words(`abstract assert break case catch class continue default do else enum extends final
			finally for if implements import instanceof interface native new package private protected public
			return static super switch synchronized this throw throws transient try volatile while var record
			sealed permits yield true false null`),
		types: words(`boolean byte char short int long float double void`),
	},
	"diff": {kind: kindDiff},
}

const jsKeywords = `break case catch class const continue debugger default delete do else export extends finally
	for function if import in instanceof let new return super switch this throw try typeof var void while with
	yield async await of static get set true false null undefined NaN Infinity from`

const jsTypes = `Array Object String Number Boolean Promise Map Set WeakMap Symbol Date RegExp Error JSON Math
	console window document globalThis BigInt require module exports`

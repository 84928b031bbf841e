/* PTX grammar (bison, C++ LALR(1), pure, no globals).
 *
 * The grammar knows PTX's structure (directives, declarations, functions, statements, operand
 * shapes) but not its instruction set: an instruction is `[@guard] OPWORD operands ;` and the
 * opcode/modifier table (ptx/sema/OpcodeTable.cpp) gives it meaning. Actions only call
 * ParseContext builders. Syntax errors recover at the next `;` or `}` so every error in a file
 * is reported.
 */
%require "3.2"
%language "c++"
%define api.namespace {ptxsim::ptx::yy}
%define api.parser.class {Parser}
%define api.value.type variant
%define api.token.constructor
%define parse.error custom
%define parse.lac full

%code requires {
#include "ptx/parser/ParseContext.h"
typedef void *yyscan_t;
}

%param {yyscan_t scanner} {ptxsim::ptx::ParseContext &ctx}

%code {
ptxsim::ptx::yy::Parser::symbol_type ptxlex(yyscan_t scanner, ptxsim::ptx::ParseContext &ctx);
#define yylex ptxlex
using namespace ptxsim::ptx;
}

%token END 0 "end of file"
%token <Tok> IDENT "identifier" OPWORD "instruction" DOTWORD "directive"
%token <Tok> TYPE "type" SPACE "state space" LINKAGE "linkage" VEC "vector width"
%token <Tok> D_ALIGN ".align" D_PTR ".ptr" D_ATTRIBUTE ".attribute"
%token <Tok> D_VERSION ".version" D_TARGET ".target" D_ADDRESS_SIZE ".address_size"
%token <Tok> D_ENTRY ".entry" D_FUNC ".func" D_FILE ".file" D_LOC ".loc" D_SECTION ".section"
%token <Tok> D_PRAGMA ".pragma" D_CALLPROTOTYPE ".callprototype" D_ALIAS ".alias"
%token <Tok> INT "integer" FLOAT "float" HEXFLOAT "hex float" STRING "string"
%token SHL "<<" SHR ">>"
%token <SourceLoc> LBRACE "'{'" LPAREN "'('"

%type <DeclAttrs> attrs attrs_opt
%type <std::unique_ptr<Declarator>> declarator
%type <PendingInstr> instr
%type <Tok> opword
%type <std::vector<Declarator>> declarators
%type <std::vector<uint64_t>> dims int_list int_list_opt
%type <std::vector<VarDecl>> params params_opt ret_opt
%type <Operand> operand expr primary compound init
%type <std::vector<Operand>> operands operands_opt init_list
%type <std::vector<Tok>> target_list strings loc_tail attr_names
%type <uint64_t> sec_vals section_body

%left '|'
%left '^'
%left '&'
%left SHL SHR
%left '+' '-'
%left '*' '/' '%'
%precedence UNARY

%%

module
  : %empty
  | module toplevel
  ;

toplevel
  : D_VERSION FLOAT                         { ctx.setVersion($1, $2); }
  | D_VERSION INT                           { ctx.setVersion($1, $2); }
  | D_TARGET target_list                    { ctx.setTarget($1, $2); }
  | D_ADDRESS_SIZE INT                      { ctx.setAddressSize($1, $2); }
  | D_FILE INT STRING                       { ctx.addFile($1, $2, $3); }
  | D_FILE INT STRING ',' INT ',' INT       { ctx.addFile($1, $2, $3); }
  | D_SECTION DOTWORD LBRACE section_body '}'  { ctx.addSection($1, $2, $4); }
  | D_PRAGMA strings ';'                    { ctx.addPragma($1, $2); }
  | D_ALIAS IDENT ',' IDENT ';'             { ctx.addAlias($2, $4); }
  | attrs TYPE declarators ';'              { ctx.addVars($1, $2, std::move($3)); }
  | attrs D_ENTRY IDENT LPAREN params_opt ')'  { Signature s; s.params = std::move($5);
                                              ctx.beginFunction(&$1, true, $3, std::move(s)); }
      func_dirs func_rest
  | D_ENTRY IDENT LPAREN params_opt ')'        { Signature s; s.params = std::move($4);
                                              ctx.beginFunction(nullptr, true, $2, std::move(s)); }
      func_dirs func_rest
  | attrs D_FUNC                            { ctx.pending = $1; ctx.hasPending = true; }
      signature
  | D_FUNC                                  { ctx.hasPending = false; }
      signature
  | error ';'
  | error '}'                               { ctx.fn = nullptr; ctx.scopeDepth = 0; }
  ;

/* `.func` header: optional return parameters, name, optional parameter list. Its attributes
   were stashed in ctx.pending by the mid-rule actions above. */
signature
  : ret_opt IDENT LPAREN params_opt ')'        { Signature s; s.returns = std::move($1);
                                              s.params = std::move($4);
                                              ctx.beginFunction(ctx.hasPending ? &ctx.pending : nullptr,
                                                                false, $2, std::move(s)); }
      func_dirs func_rest
  | ret_opt IDENT                           { Signature s; s.returns = std::move($1);
                                              ctx.beginFunction(ctx.hasPending ? &ctx.pending : nullptr,
                                                                false, $2, std::move(s)); }
      func_dirs func_rest
  ;

ret_opt
  : %empty                                  { }
  | LPAREN params_opt ')'                      { $$ = std::move($2); }
  ;

func_dirs
  : %empty
  | func_dirs DOTWORD int_list_opt          { ctx.addFuncDirective($2, std::move($3)); }
  | func_dirs D_PRAGMA strings ';'          { ctx.addPragma($2, $3); }
  ;

func_rest
  : ';'                                     { ctx.endFunctionDecl(); }
  | LBRACE                                     { ctx.beginBody(); }
      body_end
  ;

/* A syntax error in the last statement of a block recovers at the block's closing brace. */
body_end
  : stmts '}'                               { ctx.endBody(); }
  | stmts error '}'                         { ctx.endBody(); }
  ;

params_opt
  : %empty                                  { }
  | params                                  { $$ = std::move($1); }
  ;

/* Parameters are built straight into the list: a VarDecl is too large to be a semantic value
   (every parser stack slot is as large as the largest one). */
params
  : attrs TYPE attrs_opt declarator         { $$.push_back(ctx.makeVar($1, $2, &$3, std::move(*$4))); }
  | params ',' attrs TYPE attrs_opt declarator
                                            { $$ = std::move($1);
                                              $$.push_back(ctx.makeVar($3, $4, &$5, std::move(*$6))); }
  ;

attrs_opt
  : %empty                                  { }
  | attrs                                   { $$ = std::move($1); }
  ;

attrs
  : SPACE                                   { ctx.addAttr($$, $1); }
  | LINKAGE                                 { ctx.addAttr($$, $1); }
  | VEC                                     { ctx.addAttr($$, $1); }
  | D_PTR                                   { ctx.addAttr($$, $1); }
  | D_ALIGN INT                             { ctx.addAlign($$, $1, $2); }
  | D_ATTRIBUTE LPAREN attr_names ')'          { for (const Tok &t : $3) ctx.addAttribute($$, t); }
  | attrs SPACE                             { $$ = std::move($1); ctx.addAttr($$, $2); }
  | attrs LINKAGE                           { $$ = std::move($1); ctx.addAttr($$, $2); }
  | attrs VEC                               { $$ = std::move($1); ctx.addAttr($$, $2); }
  | attrs D_PTR                             { $$ = std::move($1); ctx.addAttr($$, $2); }
  | attrs D_ALIGN INT                       { $$ = std::move($1); ctx.addAlign($$, $2, $3); }
  | attrs D_ATTRIBUTE LPAREN attr_names ')'    { $$ = std::move($1); for (const Tok &t : $4) ctx.addAttribute($$, t); }
  ;

/* `.attribute(.managed)` */
attr_names
  : DOTWORD                                 { $$.push_back($1); }
  | attr_names ',' DOTWORD                  { $$ = std::move($1); $$.push_back($3); }
  ;

declarators
  : declarator                              { $$.push_back(std::move(*$1)); }
  | declarators ',' declarator              { $$ = std::move($1); $$.push_back(std::move(*$3)); }
  ;

/* Heap-allocated: a Declarator is larger than the other semantic values. */
declarator
  : IDENT                                   { $$ = std::make_unique<Declarator>(); $$->name = $1; }
  | IDENT '<' INT '>'                       { $$ = std::make_unique<Declarator>(); $$->name = $1; $$->isRange = true;
                                              $$->rangeCount = ctx.toRangeCount($3); }
  | IDENT dims                              { $$ = std::make_unique<Declarator>(); $$->name = $1;
                                              $$->dims = std::move($2); $$->hasDims = true; }
  | IDENT '=' init                          { $$ = std::make_unique<Declarator>(); $$->name = $1;
                                              $$->hasInit = true; $$->init.push_back(std::move($3)); }
  | IDENT dims '=' init                     { $$ = std::make_unique<Declarator>(); $$->name = $1;
                                              $$->dims = std::move($2); $$->hasDims = true;
                                              $$->hasInit = true; $$->init.push_back(std::move($4)); }
  ;

dims
  : '[' INT ']'                             { $$.push_back(ctx.toUnsigned($2)); }
  | '[' ']'                                 { $$.push_back(0); }
  | dims '[' INT ']'                        { $$ = std::move($1); $$.push_back(ctx.toUnsigned($3)); }
  | dims '[' ']'                            { $$ = std::move($1); $$.push_back(0); }
  ;

init
  : expr                                    { $$ = std::move($1); }
  | LBRACE init_list '}'                      { ctx.nest($$, Operand::Kind::Vector, std::move($2), $1); }
  ;

init_list
  : init                                    { $$.push_back(std::move($1)); }
  | init_list ',' init                      { $$ = std::move($1); $$.push_back(std::move($3)); }
  ;

int_list_opt
  : %empty                                  { }
  | int_list                                { $$ = std::move($1); }
  ;

int_list
  : INT                                     { $$.push_back(ctx.toUnsigned($1)); }
  | int_list ',' INT                        { $$ = std::move($1); $$.push_back(ctx.toUnsigned($3)); }
  ;

target_list
  : IDENT                                   { $$.push_back($1); }
  | target_list ',' IDENT                   { $$ = std::move($1); $$.push_back($3); }
  ;

strings
  : STRING                                  { $$.push_back($1); }
  | strings ',' STRING                      { $$ = std::move($1); $$.push_back($3); }
  ;

section_body
  : %empty                                  { $$ = 0; }
  | section_body IDENT ':'                  { $$ = $1; }
  | section_body TYPE sec_vals              { $$ = $1 + $3 * ((typeBits(lookupType($2.text.substr(1))) + 7) / 8); }
  ;

sec_vals
  : sec_val                                 { $$ = 1; }
  | sec_vals ',' sec_val                    { $$ = $1 + 1; }
  ;

sec_val
  : INT | IDENT | DOTWORD
  | IDENT '+' INT | IDENT '-' IDENT | DOTWORD '+' INT
  ;

/* ---------------------------------------------------------------- function bodies */

stmts
  : %empty
  | stmts stmt
  ;

stmt
  : IDENT ':'                               { ctx.addLabel($1); }
  | instr ';'                               { ctx.addInstr($1); }
  | attrs TYPE declarators ';'              { ctx.addVars($1, $2, std::move($3)); }
  | LBRACE                                     { ctx.beginScope($1); }
      scope_end
  | D_LOC INT INT INT loc_tail              { ctx.addLoc($1, {$2, $3, $4}, $5); }
  | D_PRAGMA strings ';'                    { ctx.addPragma($1, $2); }
  | D_CALLPROTOTYPE ret_opt IDENT LPAREN params_opt ')' ';'
                                            { Signature s; s.returns = std::move($2);
                                              s.params = std::move($5); ctx.addPrototype($1, std::move(s)); }
  | D_FILE INT STRING                       { ctx.addFile($1, $2, $3); }
  | DOTWORD operands_opt ';'                { ctx.addTargets($1, std::move($2)); }
  | error ';'
  ;

/* `, function_name LABEL` and `, inlined_at FILE LINE COL` */
scope_end
  : stmts '}'                               { ctx.endScope(); }
  | stmts error '}'                         { ctx.endScope(); }
  ;

loc_tail
  : %empty                                  { }
  | loc_tail ',' IDENT IDENT                { $$ = std::move($1); $$.push_back($3); $$.push_back($4); }
  | loc_tail ',' IDENT INT INT INT          { $$ = std::move($1); $$.push_back($3); $$.push_back($4);
                                              $$.push_back($5); $$.push_back($6); }
  ;

/* The instruction is added only once its ';' is seen, so a statement with a syntax error
   never reaches the checker half-parsed. */
instr
  : opword operands_opt                     { $$.op = $1; $$.operands = std::move($2); }
  | guard opword operands_opt               { $$.hasGuard = true; $$.op = $2; $$.operands = std::move($3); }
  ;

/* The guard is kept in the context (one instruction is pending at a time), which keeps the
   semantic values, and so every parser stack slot, small. */
guard
  : '@' IDENT                               { ctx.guard = $2; ctx.guardNeg = false; }
  | '@' '!' IDENT                           { ctx.guard = $3; ctx.guardNeg = true; }
  ;

opword
  : OPWORD                                  { $$ = $1; }
  | IDENT                                   { $$ = $1; }
  ;

operands_opt
  : %empty                                  { }
  | operands                                { $$ = std::move($1); }
  ;

operands
  : operand                                 { $$.reserve(4); $$.push_back(std::move($1)); }
  | operands ',' operand                    { $$ = std::move($1); $$.push_back(std::move($3)); }
  ;

/* Operands that are a single name or literal reduce straight to `operand`; only compound
   expressions go through `expr`. This halves the reductions for the common case. */
operand
  : primary                                 { $$ = std::move($1); }
  | compound                                { $$ = std::move($1); }
  | '[' expr ']'                            { $$ = ctx.address($2.loc, std::move($2), {}); }
  | '[' expr ',' operands ']'               { $$ = ctx.address($2.loc, std::move($2), std::move($4)); }
  | LBRACE operands '}'                     { ctx.nest($$, Operand::Kind::Vector, std::move($2), $1); }
  ;

expr
  : primary                                 { $$ = std::move($1); }
  | compound                                { $$ = std::move($1); }
  ;

compound
  : expr '+' expr                           { $$ = ctx.binary('+', std::move($1), std::move($3), $1.loc); }
  | expr '-' expr                           { $$ = ctx.binary('-', std::move($1), std::move($3), $1.loc); }
  | expr '*' expr                           { $$ = ctx.binary('*', std::move($1), std::move($3), $1.loc); }
  | expr '/' expr                           { $$ = ctx.binary('/', std::move($1), std::move($3), $1.loc); }
  | expr '%' expr                           { $$ = ctx.binary('%', std::move($1), std::move($3), $1.loc); }
  | expr SHL expr                           { $$ = ctx.binary('<', std::move($1), std::move($3), $1.loc); }
  | expr SHR expr                           { $$ = ctx.binary('>', std::move($1), std::move($3), $1.loc); }
  | expr '&' expr                           { $$ = ctx.binary('&', std::move($1), std::move($3), $1.loc); }
  | expr '^' expr                           { $$ = ctx.binary('^', std::move($1), std::move($3), $1.loc); }
  | expr '|' expr                           { $$ = ctx.binary('|', std::move($1), std::move($3), $1.loc); }
  | '-' expr %prec UNARY                    { $$ = ctx.unary('-', std::move($2), ctx.last.loc); }
  | '~' expr %prec UNARY                    { $$ = ctx.unary('~', std::move($2), ctx.last.loc); }
  | '!' expr %prec UNARY                    { $$ = ctx.unary('!', std::move($2), ctx.last.loc); }
  ;

primary
  : IDENT                                   { $$ = ctx.name($1); }
  | INT                                     { $$ = ctx.intLit($1); }
  | FLOAT                                   { $$ = ctx.floatLit($1); }
  | HEXFLOAT                                { $$ = ctx.floatLit($1); }
  | LPAREN operands_opt ')'                    { ctx.nest($$, Operand::Kind::List, std::move($2), $1); }
  | IDENT LPAREN operands ')'                  { $$ = ctx.call($1, std::move($3)); }
  ;

%%

void ptxsim::ptx::yy::Parser::report_syntax_error(const context &yyctx) const {
  std::string msg;
  const Tok &t = ctx.last;
  if (t.loc.line == ctx.lexErrorLine)
    return; // the scanner already reported this line's problem
  if (yyctx.token() == symbol_kind::S_YYEOF) {
    msg = "unexpected end of file";
  } else {
    std::string_view text = t.text.substr(0, 40);
    msg = "syntax error at '" + std::string(text) + "'";
  }
  // List what could follow (LAC makes the list exact), leaving out the operators and '(' that
  // could extend an expression: they are rarely what the writer missed. Only short lists are
  // worth printing.
  symbol_kind_type all[YYNTOKENS];
  int total = yyctx.expected_tokens(all, YYNTOKENS);
  std::vector<symbol_kind_type> expected;
  for (int i = 0; i < total; ++i) {
    std::string name = symbol_name(all[i]);
    if (name.size() == 3 && name[0] == '\'' && std::string("+-*/%&^|~!").find(name[1]) != std::string::npos)
      continue;
    if (all[i] == symbol_kind::S_SHL || all[i] == symbol_kind::S_SHR ||
        all[i] == symbol_kind::S_LPAREN)
      continue;
    expected.push_back(all[i]);
  }
  // A statement cut short at the end of its line almost always lacks its ';'.
  bool semicolonOk = false;
  for (symbol_kind_type k : expected)
    semicolonOk |= std::string(symbol_name(k)) == "';'";
  if (expected.size() > 3 && semicolonOk && ctx.firstOnLine(t)) {
    msg += ", expected ';'";
  } else if (!expected.empty() && expected.size() <= 3) {
    msg += ", expected ";
    for (size_t i = 0; i < expected.size(); ++i) {
      if (i)
        msg += i + 1 == expected.size() ? " or " : ", ";
      msg += symbol_name(expected[i]);
    }
  }
  ctx.error(t.loc, msg);
}

void ptxsim::ptx::yy::Parser::error(const std::string &msg) { ctx.error(ctx.last.loc, msg); }

package selector

// Node is a node of a parsed selector: All, Global, Has, Match, Not, And or Or.
type Node interface {
	// Pos is the byte offset in the input where the node starts.
	Pos() int
	node()
}

// Op is the operator of a Match.
type Op int

// Operators of a Match, in the order Calico documents them.
const (
	OpEqual Op = iota + 1
	OpNotEqual
	OpIn
	OpNotIn
	OpContains
	OpStartsWith
	OpEndsWith
)

// String returns the operator as it is written in a selector.
func (o Op) String() string {
	switch o {
	case OpEqual:
		return "=="
	case OpNotEqual:
		return "!="
	case OpIn:
		return "in"
	case OpNotIn:
		return "not in"
	case OpContains:
		return "contains"
	case OpStartsWith:
		return "starts with"
	case OpEndsWith:
		return "ends with"
	}
	return "?"
}

// All is all(): it matches every endpoint.
type All struct{ At int }

// Global is global(): it matches resources that are not namespaced (meaningful in a namespaceSelector).
type Global struct{ At int }

// Has is has(Key): the label Key is present, whatever its value.
type Has struct {
	At  int
	Key string
	// KeyAt is the byte offset of Key.
	KeyAt int
}

// Match compares the value of label Key: Value for ==, !=, contains, starts with and ends with;
// Values for in and not in.
type Match struct {
	At     int
	Key    string
	Op     Op
	Value  string
	Values []string
}

// Not negates X.
type Not struct {
	At int
	X  Node
}

// And matches when every term matches. A parenthesised And inside an And stays a term of its own,
// so printing reproduces the grouping.
type And struct {
	At    int
	Terms []Node
}

// Or matches when any term matches.
type Or struct {
	At    int
	Terms []Node
}

func (n *All) Pos() int    { return n.At }
func (n *Global) Pos() int { return n.At }
func (n *Has) Pos() int    { return n.At }
func (n *Match) Pos() int  { return n.At }
func (n *Not) Pos() int    { return n.At }
func (n *And) Pos() int    { return n.At }
func (n *Or) Pos() int     { return n.At }

func (*All) node()    {}
func (*Global) node() {}
func (*Has) node()    {}
func (*Match) node()  {}
func (*Not) node()    {}
func (*And) node()    {}
func (*Or) node()     {}

// Walk calls fn for n and every node below it, parents first. It recurses only as deep as the
// parser allows nesting.
func Walk(n Node, fn func(Node)) {
	if n == nil {
		return
	}
	fn(n)
	switch n := n.(type) {
	case *Not:
		Walk(n.X, fn)
	case *And:
		for _, t := range n.Terms {
			Walk(t, fn)
		}
	case *Or:
		for _, t := range n.Terms {
			Walk(t, fn)
		}
	}
}

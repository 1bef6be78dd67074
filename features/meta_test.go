package features

import "testing"

func TestMetaRoundTrip(t *testing.T) {
	m := Meta{Kind: KindPIOPT, Slots: 3, Features: 136, Metric: "ndcg@3", Targets: "uniform 1e7"}
	got, err := MetaFromAttrs(m.Attrs())
	if err != nil || got != m {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	if m.Columns() != 139 {
		t.Fatalf("Columns = %d", m.Columns())
	}
}

func TestMetaRejects(t *testing.T) {
	for _, a := range []map[string]string{
		{},
		{"piopt_kind": "forest", "piopt_slots": "0", "piopt_features": "3"},
		{"piopt_kind": "sup", "piopt_slots": "x", "piopt_features": "3"},
		{"piopt_kind": "sup", "piopt_slots": "0", "piopt_features": "0"},
		{"piopt_kind": "pi-opt", "piopt_slots": "0", "piopt_features": "3"},
	} {
		if _, err := MetaFromAttrs(a); err == nil {
			t.Errorf("MetaFromAttrs(%v) accepted", a)
		}
	}
}

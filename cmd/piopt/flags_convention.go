package main

import (
	"fmt"

	"github.com/piopt/piopt/data"
	"github.com/piopt/piopt/eval"
	"github.com/urfave/cli/v2"
)

// conventionFlags are the metric conventions shared by every command that
// scores slates.
func conventionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "discount", Value: "log2", Usage: "DCG `DISCOUNT`: log2 = 1/log2(j+1) (paper's text, all libraries) or max2 = 1/log2(max(j,2)) (the authors' scripts)"},
		&cli.IntFlag{Name: "empty-ndcg", Value: 0, Usage: "NDCG `V` of a query without relevant docs: 0 (scikit-learn, paper's scripts) or 1 (LightGBM, XGBoost)"},
		&cli.IntFlag{Name: "maxrel", Usage: "ERR's `MAXREL`", DefaultText: "the data's highest grade"},
	}
}

// conventions reads conventionFlags; maxrel defaults to the highest grade of
// the given datasets (also when given as 0), and a maxrel below it, negative
// or above 255 (eval.CheckMaxRel) is refused.
func conventions(c *cli.Context, ds ...*data.Dataset) (eval.Conventions, error) {
	d, err := eval.ParseDiscount(c.String("discount"))
	if err != nil {
		return eval.Conventions{}, err
	}
	e := c.Int("empty-ndcg")
	if e != 0 && e != 1 {
		return eval.Conventions{}, fmt.Errorf("--empty-ndcg must be 0 or 1, not %d", e)
	}
	highest := 0
	for _, x := range ds {
		highest = max(highest, x.MaxLabel())
	}
	mr := c.Int("maxrel")
	if mr == 0 {
		mr = highest
	} else if err := eval.CheckMaxRel(mr, highest); err != nil {
		return eval.Conventions{}, fmt.Errorf("--%w", err)
	}
	return eval.Conventions{Discount: d, EmptyOne: e == 1, MaxRel: mr}, nil
}

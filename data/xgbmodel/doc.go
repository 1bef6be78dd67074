// Package xgbmodel reads XGBoost model files without XGBoost: the legacy
// binary format and the JSON format of XGBoost 1.x `save_model`, gbtree
// models with one output, and their attributes (where piopt keeps its
// metadata, features.Meta). Decode checks everything inference relies on,
// so that a corrupt file gives an error, never a panic or an endless loop.
//
// (*Model).Leaves turns a decoded model into a leaves ensemble
// (github.com/dmitryikh/leaves), the pure-Go predictor behind ranker's
// scores of the slot-action pairs [f(x,a); onehot(j)]. leaves reads only the
// legacy binary format as written before XGBoost 1.0, and gets a 1.7 model
// wrong in three ways; the load-time transform fixes all three:
//
//  1. 1.7 writes a 4-byte "binf" prefix before the learner parameters;
//     leaves reads it as part of a length and tries to allocate 64 GiB.
//     The prefix is dropped.
//  2. 1.x writes GBTreeModelParam's num_output_group (offset 24) as 0, a
//     deprecated field; leaves divides by it. It is written as 1 (piopt
//     models have one output: num_class must be 0 or 1).
//  3. XGBoost sends a row left when x < t (x and t float32); leaves when
//     x ≤ t. Every split threshold t becomes math.Nextafter32(t, −Inf): for
//     float32 x, x < t ⇔ x ≤ nextafter(t, −Inf), and leaves compares float64
//     copies of float32 features with float64(nextafter(t, −Inf)), which is
//     exact. (Without it, 84% of rows go wrong on integer-valued features.)
//
// Tree.Leaf walks one tree as XGBoost's CPU predictor does, bit for bit;
// trainer adds each new round's leaves to its running predictions of the
// validation rows, instead of handing those rows to XGBoost.
//
// Rather than patch bytes in place, the file is decoded into a Model (both
// formats, so .json models work too), checked, and encoded again in the
// layout leaves expects, with the three fixes applied. Leaf values, split
// features, default directions and the base score are copied bit for bit.
//
// Legacy binary layout of XGBoost 1.7 (learner.cc LearnerIO::SaveModel,
// gbtree_model.cc GBTreeModel::Save, tree_model.cc RegTree::Save), all
// little-endian; a string is a uint64 length and its bytes:
//
//	"binf"                          4 bytes: written by XGBoost 1.7 (the
//	                                tests check files XGBoost 1.7.4 saves);
//	                                older files may lack it, so Decode
//	                                accepts files with and without it
//	LearnerModelParamLegacy       136 bytes: base_score float32 @0,
//	                                num_feature uint32 @4, num_class int32 @8,
//	                                contain_extra_attrs int32 @12 (1 in 1.7),
//	                                contain_eval_metrics int32 @16,
//	                                major_version uint32 @20, minor @24,
//	                                reserved
//	objective, booster            strings ("reg:squarederror", "gbtree")
//	GBTreeModelParam              160 bytes: num_trees int32 @0,
//	                                num_parallel_tree int32 @4,
//	                                num_feature int32 @8, pad @12, int64 @16,
//	                                num_output_group int32 @24 (0 in 1.x),
//	                                size_leaf_vector int32 @28, reserved
//	num_trees × tree:
//	  TreeParam                   148 bytes: num_roots @0, num_nodes int32 @4,
//	                                num_deleted @8, max_depth @12,
//	                                num_feature @16, size_leaf_vector @20,
//	                                reserved
//	  num_nodes × node             20 bytes: parent int32, left int32
//	                                (−1: leaf), right int32, split index
//	                                uint32 (bit 31: missing values go left),
//	                                split threshold or leaf value float32
//	                                (go left when x < t)
//	  num_nodes × node statistics  16 bytes: loss_chg, sum_hess, base_weight
//	                                float32, leaf_child_cnt int32 (unused here)
//	  [leaf vector]                only when size_leaf_vector > 0 (refused)
//	tree_info                     num_trees × int32 output group (no length
//	                                prefix), only when num_trees > 0
//	attributes                    only when contain_extra_attrs ≠ 0: uint64
//	                                count, then (key, value) string pairs,
//	                                sorted by key. 1.7 puts the booster
//	                                attributes (piopt's metadata) here, and
//	                                the key "objective" (the objective's JSON
//	                                configuration), which it drops again when
//	                                it loads the file.
//
// The prediction of a row is base_score plus the leaf value reached in each
// tree.
package xgbmodel

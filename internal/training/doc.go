// Package training is the workflow of piopt train: read a LETOR file (and,
// for PI-OPT, the imputed targets φ̂ written by impute), build the design
// matrix of the model kind, fit XGBoost with an optional validation set,
// save the model atomically and summarise the run.
//
// The numbers are the library's: features builds the rows, trainer fits and
// saves. This package only sequences them, keeps the process's memory peak
// low, shows progress and times piopt's own work apart from XGBoost's.
package training

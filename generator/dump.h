/* gen --dump: a readable summary of a loaded model. */
#ifndef BENANZA_DUMP_H
#define BENANZA_DUMP_H

#include "ir.h"

/* Producer, IR version, opsets, inputs/outputs with shapes, op-type histogram
 * and the node list (subgraphs indented under their node). */
void dump_model(FILE *out, const struct ir_model *m);

/* gen --graph: the main graph as gen works on it after shape inference (other runtimes' fused
 * operators written as ONNX ones), as one JSON object: opsets, inputs, outputs, initializers
 * (dims, and values where gen keeps them), nodes (op, domain, the opset each follows, its index
 * in the file, inputs, outputs, attributes with their types) and every value's inferred type. */
void dump_graph_json(FILE *out, const struct ir_model *m);

#endif

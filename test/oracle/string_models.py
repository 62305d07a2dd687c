#!/usr/bin/env python3
"""Writes models of the operators on tensors of strings: Cast from float, double, float16, the
integers and bool to strings and from strings to them,
CastLike both ways, and StringNormalizer in each case mode, case-sensitive or not, with and
without stopwords (some of them capitalised, so that folding matters), on [C] and [1, C], and
TfIdfVectorizer of a string pool (unigrams and bigrams, skips, the three modes), StringConcat
(broadcast both ways), StringSplit (on whitespace, on a character, on a word, with maxsplit)
and RegexFullMatch (classes, counted and lazy repetition, alternation, groups, (?i); not RE2's
POSIX class names, which onnx.reference, on Python's re, reads otherwise).
The
e2e test benchmarks them and holds each plain C kernel against onnx.reference
(plain_check.py; numbers cast to strings against ONNX Runtime, whose printed form the benchmark
follows; StringNormalizer without a case change and not case-sensitive against the ONNX
specification, which onnx.reference does not follow there).

usage: string_models.py OUTDIR"""
import os
import sys

import onnx
from onnx import TensorProto as T, helper


def model(name, node, ins, out, opset=13):
    g = helper.make_graph([node], name, [helper.make_tensor_value_info(n, t, s) for n, t, s in ins],
                          [helper.make_tensor_value_info(*out)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def cast(name, src, dst, shape):
    return model(name, helper.make_node("Cast", ["x"], ["y"], to=dst), [("x", src, shape)], ("y", dst, shape))


def normalizer(name, shape, **attrs):
    out = [1, "n"] if len(shape) == 2 else ["n"]
    return model(name, helper.make_node("StringNormalizer", ["x"], ["y"], **attrs), [("x", T.STRING, shape)],
                 ("y", T.STRING, out), opset=10)


def tfidf(name, shape, mode, lo, hi, skip, weights=False):
    """a pool of words (one repeated) and bigrams of them, as sklearn-onnx writes for a text
    vectorizer"""
    words = ["apple", "Banana", "cherry", "date", "elder", "fig", "grape", "apple"]
    bigrams = ["apple", "fig", "cherry", "date", "Banana", "apple", "grape", "grape"]
    attrs = dict(mode=mode, min_gram_length=lo, max_gram_length=hi, max_skip_count=skip,
                 pool_strings=words + bigrams, ngram_counts=[0, len(words)],
                 ngram_indexes=list(range(len(words) + len(bigrams) // 2)))
    if weights:
        attrs["weights"] = [0.5 + 0.25 * k for k in range(len(attrs["ngram_indexes"]))]
    n = len(attrs["ngram_indexes"])
    return model(name, helper.make_node("TfIdfVectorizer", ["x"], ["y"], **attrs), [("x", T.STRING, shape)],
                 ("y", T.FLOAT, ([shape[0], n] if len(shape) == 2 else [n])), opset=9)


def split(name, shape, **attrs):
    node = helper.make_node("StringSplit", ["x"], ["y", "n"], **attrs)
    g = helper.make_graph([node], name, [helper.make_tensor_value_info("x", T.STRING, shape)],
                          [helper.make_tensor_value_info("y", T.STRING, shape + ["parts"]),
                           helper.make_tensor_value_info("n", T.INT64, shape)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
    m.ir_version = 9
    onnx.checker.check_model(m)
    return m


def regex(name, shape, pattern):
    return model(name, helper.make_node("RegexFullMatch", ["x"], ["y"], pattern=pattern), [("x", T.STRING, shape)],
                 ("y", T.BOOL, shape), opset=20)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    stops = ["the", "And", "of", "IS", "a"]
    models = [
        cast("cast_float_to_string", T.FLOAT, T.STRING, [40, 45]),
        cast("cast_double_to_string", T.DOUBLE, T.STRING, [900]),
        cast("cast_float16_to_string", T.FLOAT16, T.STRING, [30, 30]),
        cast("cast_int8_to_string", T.INT8, T.STRING, [64]),
        cast("cast_uint16_to_string", T.UINT16, T.STRING, [64]),
        cast("cast_int32_to_string", T.INT32, T.STRING, [8, 40]),
        cast("cast_int64_to_string", T.INT64, T.STRING, [300]),
        cast("cast_uint64_to_string", T.UINT64, T.STRING, [100]),
        cast("cast_bool_to_string", T.BOOL, T.STRING, [50]),
        cast("cast_string_to_float", T.STRING, T.FLOAT, [40, 45]),
        cast("cast_string_to_double", T.STRING, T.DOUBLE, [900]),
        cast("cast_string_to_float16", T.STRING, T.FLOAT16, [400]),
        cast("cast_string_to_int64", T.STRING, T.INT64, [300]),
        cast("cast_string_to_int16", T.STRING, T.INT16, [200]),
        cast("cast_string_to_uint8", T.STRING, T.UINT8, [200]),
        model("castlike_string_to_float", helper.make_node("CastLike", ["x", "like"], ["y"]),
              [("x", T.STRING, [3, 100]), ("like", T.FLOAT, [1])], ("y", T.FLOAT, [3, 100]), opset=15),
        normalizer("strnorm_lower_insensitive", [500], case_change_action="LOWER", stopwords=stops),
        normalizer("strnorm_upper_sensitive", [1, 700], case_change_action="UPPER", is_case_sensitive=1,
                   stopwords=stops),
        normalizer("strnorm_none_insensitive", [1, 300], stopwords=stops),
        normalizer("strnorm_none_sensitive", [300], is_case_sensitive=1, stopwords=stops),
        normalizer("strnorm_lower_no_stopwords", [1, 256], case_change_action="LOWER"),
        tfidf("tfidf_strings_tf_bigrams_skip2", [1000], "TF", 2, 2, 2),
        model("concat_broadcast", helper.make_node("StringConcat", ["x", "z"], ["y"]),
              [("x", T.STRING, [20, 30]), ("z", T.STRING, [30])], ("y", T.STRING, [20, 30]), opset=20),
        model("concat_outer", helper.make_node("StringConcat", ["x", "z"], ["y"]),
              [("x", T.STRING, [40, 1]), ("z", T.STRING, [1, 25])], ("y", T.STRING, [40, 25]), opset=20),
        split("split_whitespace", [300]),
        split("split_comma", [10, 30], delimiter=","),
        split("split_word_max2", [200], delimiter="--", maxsplit=2),
        split("split_whitespace_max1", [4, 50], maxsplit=1),
        regex("regex_email", [200], r"[a-z0-9._]+@[a-z]+\.(com|org|net)"),
        regex("regex_phone", [10, 20], r"\d{3}-\d{4}( x\d{1,4})?"),
        regex("regex_icase_words", [300], r"(?i)hello(,? (big|small) )?world!*"),
        regex("regex_classes", [256], r"[^aeiou\s]+\d{2,}[]x-]?"),
        regex("regex_alternation_lazy", [128], r"a|b+?|(?:cd){2,4}|.*z.*"),
        tfidf("tfidf_strings_idf_uni_bi", [4, 300], "IDF", 1, 2, 0, weights=True),
        tfidf("tfidf_strings_tfidf_skip1", [2, 500], "TFIDF", 1, 2, 1, weights=True),
    ]
    for m in models:
        onnx.save(m, os.path.join(out, m.graph.name + ".onnx"))


if __name__ == "__main__":
    main()

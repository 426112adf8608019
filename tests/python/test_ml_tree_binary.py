"""TreeEnsembleClassifier with two classes scored through one (a binary
model): one base value is the scored class's, as onnxruntime reads it."""

import numpy as np
import pytest
from onnx import TensorProto, helper

import tessera as ort


def binary_tree_model(base_values, weights=(0.25, -0.5), post_transform="LOGISTIC"):
    # One split on feature 1 at 2.0: below goes to leaf 1, else leaf 2; both
    # leaves vote for class id 0 only, so the model scores a single column.
    attrs = dict(
        nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2], nodes_featureids=[1, 0, 0],
        nodes_values=[2.0, 0.0, 0.0], nodes_modes=["BRANCH_LT", "LEAF", "LEAF"],
        nodes_truenodeids=[1, 0, 0], nodes_falsenodeids=[2, 0, 0],
        class_treeids=[0, 0], class_nodeids=[1, 2], class_ids=[0, 0],
        class_weights=list(weights), classlabels_int64s=[10, 20],
        post_transform=post_transform)
    if base_values is not None:
        attrs["base_values"] = base_values
    node = helper.make_node("TreeEnsembleClassifier", ["X"], ["label", "probs"],
                            domain="ai.onnx.ml", **attrs)
    graph = helper.make_graph(
        [node], "binary_tree", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [None, 2])],
        [helper.make_tensor_value_info("label", TensorProto.INT64, [None]),
         helper.make_tensor_value_info("probs", TensorProto.FLOAT, [None, 2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15),
                                                    helper.make_opsetid("ai.onnx.ml", 3)])
    return model.SerializeToString()


def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


X = np.array([[0.0, 1.0], [0.0, 3.0]], dtype=np.float32)


def test_one_base_value_is_added_to_the_scored_class():
    sess = ort.InferenceSession(binary_tree_model([1.5]), providers=["CPUExecutionProvider"])
    label, probs = sess.run(None, {"X": X})
    scores = np.array([1.5 + 0.25, 1.5 - 0.5])
    np.testing.assert_allclose(probs[:, 1], sigmoid(scores), rtol=1e-6)
    np.testing.assert_allclose(probs[:, 0], 1 - sigmoid(scores), rtol=1e-6)
    np.testing.assert_array_equal(label, [20, 20])


def test_one_negative_base_value_can_flip_the_label():
    sess = ort.InferenceSession(binary_tree_model([-0.4]), providers=["CPUExecutionProvider"])
    label, probs = sess.run(None, {"X": X})
    np.testing.assert_allclose(probs[:, 1], sigmoid(np.array([-0.15, -0.9])), rtol=1e-6)
    np.testing.assert_array_equal(label, [10, 10])


def test_no_base_value_is_zero():
    sess = ort.InferenceSession(binary_tree_model(None), providers=["CPUExecutionProvider"])
    _, probs = sess.run(None, {"X": X})
    np.testing.assert_allclose(probs[:, 1], sigmoid(np.array([0.25, -0.5])), rtol=1e-6)


def test_three_base_values_for_two_classes_are_refused():
    with pytest.raises(Exception, match="3 base_values for 2 classes"):
        ort.InferenceSession(binary_tree_model([0.0, 1.0, 2.0]),
                             providers=["CPUExecutionProvider"])

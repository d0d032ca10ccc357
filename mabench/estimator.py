"""The scikit-learn transformer: :class:`Microaggregator` (needs scikit-learn, the ``sdcmicro`` extra).

Microaggregation masks the data it is given and has no rule for other records (as DBSCAN has no
``predict``): ``fit_transform(X)`` is the call, and ``transform`` only repeats the masked values of
the data the estimator was fitted on, refusing anything else in one line.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mabench.errors import UserError

try:
    from sklearn.base import BaseEstimator, TransformerMixin
    from sklearn.utils.validation import _check_feature_names, _check_n_features, check_array, check_is_fitted
except ImportError as exc:  # pragma: no cover - the extra is missing
    raise UserError("mabench.Microaggregator needs scikit-learn: pip install 'mabench[sdcmicro]'") from exc

__all__ = ["Microaggregator"]


class Microaggregator(TransformerMixin, BaseEstimator):
    """Microaggregation as a scikit-learn transformer: ``fit_transform`` gives the masked data.

    Parameters
    ----------
    method : str, default "mdav"
        Algorithm name (``mabench.methods()``).
    k : int, default 3
        Minimum group size.
    columns : list of str, optional
        The variables to aggregate (a DataFrame's column names); default every numeric column.
        Other columns are passed through unchanged.
    seed : int, default 0
        Seed of the method's randomness.
    measure, trim, weights, strata, missing, fill
        As in :func:`mabench.microaggregate` (None: the default).
    round_integers : bool, default False
        Integer input columns come back integer: each group's value rounded half to even. The
        rounding adds information loss (at most 0.5 per value, docs/guide.md); without it an integer
        column becomes float unless every group value is whole.
    params : dict, optional
        The method's own parameters (e.g. ``{"tail": "2k"}``).

    Attributes
    ----------
    labels_ : numpy.ndarray
        Group of each fitted row.
    result_ : mabench.Result
        The full result (masked frame, metrics).
    n_features_in_ : int
        Number of input columns.
    feature_names_in_ : numpy.ndarray
        Input column names (DataFrame input with string column names).

    Examples
    --------
    >>> import numpy as np
    >>> from mabench import Microaggregator
    >>> X = np.array([[1.0, 2.0], [1.5, 2.5], [2.0, 2.0], [9.0, 9.0], [9.5, 8.0], [10.0, 9.5]])
    >>> m = Microaggregator(method="mdav", k=3)
    >>> m.fit_transform(X)[0].tolist()
    [1.5, 2.1666666666666665]
    >>> m.labels_.tolist()
    [1, 1, 1, 0, 0, 0]
    """

    def __init__(self, method: str = "mdav", k: int = 3, *, columns=None, seed: int = 0, measure=None, trim=None,
                 weights=None, strata=None, missing=None, fill=None, round_integers: bool = False, params=None):
        # scikit-learn's rule: every parameter kept as given, under its own name (get_params reads them)
        given = dict(locals())
        del given["self"]
        vars(self).update(given)

    def _aggregation(self) -> dict:
        given = {"measure": self.measure, "trim": self.trim, "weights": self.weights, "strata": self.strata,
                 "missing": self.missing, "fill": self.fill}
        return {**{name: value for name, value in given.items() if value is not None}, **dict(self.params or {})}

    def _frame(self, X, reset: bool) -> pd.DataFrame:
        if isinstance(X, pd.DataFrame):
            _check_n_features(self, X, reset=reset)
            _check_feature_names(self, X, reset=reset)
            return X
        allow_nan = "allow-nan" if self.missing == "available" else True
        array = check_array(X, dtype=None if _integer(X) else "numeric", ensure_all_finite=allow_nan,
                            ensure_min_samples=2)
        _check_n_features(self, array, reset=reset)
        _check_feature_names(self, X, reset=reset)
        return pd.DataFrame(array, columns=[f"x{j + 1}" for j in range(array.shape[1])])

    def fit(self, X, y=None):
        """Find the groups of ``X`` (``y`` is ignored)."""
        from mabench.api import microaggregate

        frame = self._frame(X, reset=True)
        self.result_ = microaggregate(frame, self.k, self.method, self.columns, self.seed, **self._aggregation())
        self.labels_ = self.result_.labels
        self._fitted = frame.copy()
        self._as_frame = isinstance(X, pd.DataFrame)
        return self

    def transform(self, X):
        """The masked values of the data this estimator was fitted on (other data are refused)."""
        check_is_fitted(self, "result_")
        frame = self._frame(X, reset=False)
        if frame.shape != self._fitted.shape or not frame.equals(self._fitted):
            raise UserError("Microaggregator.transform masks the data it was fitted on; for other data call "
                            "fit_transform(X)")
        masked = self.result_.masked
        if self.round_integers:
            masked = masked.copy()
            for c in self.result_.columns:
                if pd.api.types.is_integer_dtype(frame[c].dtype):
                    masked[c] = np.round(masked[c].to_numpy(dtype=np.float64)).astype(frame[c].dtype)
        if self._as_frame:
            return masked
        values = masked.to_numpy()
        return values if values.dtype.kind in "iu" and self.round_integers else values.astype(np.float64)

    def fit_transform(self, X, y=None, **fit_params):
        return self.fit(X, y).transform(X)

    def get_feature_names_out(self, input_features=None):
        """The output columns: the input's, in their order (aggregated ones keep their names)."""
        from sklearn.utils.validation import _check_feature_names_in

        check_is_fitted(self, "n_features_in_")
        return _check_feature_names_in(self, input_features, generate_names=True)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.missing == "available"
        tags.non_deterministic = False
        tags.requires_fit = True
        return tags


def _integer(X) -> bool:
    return isinstance(X, np.ndarray) and X.dtype.kind in "iu"

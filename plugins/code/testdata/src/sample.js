// Sample module for outline and find_symbol.
const fs = require('fs');

export const MAX_ITEMS = 10;
let counter = 0;

/** Greets someone. */
export function greet(name) {
  return `hello ${name}`;
}

function* ids() {
  yield 1;
}

const add = (a, b) => a + b;

export const fetchAll = async function (urls) {
  function inner() {}
  return Promise.all(urls);
};

export default class Widget extends Base {
  static count = 0;
  #secret = 1;

  constructor(name) {
    super();
    this.name = name;
  }

  get label() {
    return this.name;
  }

  render() {
    return `<div>${this.name}</div>`;
  }

  static create(name) {
    return new Widget(name);
  }
}

class Base {}
